// The official JavaScript client, @kubernetes/client-node, against a served cluster: the kubeconfig
// is read unchanged ($KUBECONFIG: https, the server's CA, the bearer token). An informer on pods, a
// watch on JobSets, a create of a JobSet (the reference controller then makes its pods), and a 404.
// Prints one JSON object with what it saw; tests/http/test_client_node.py checks it.
import * as k8s from '@kubernetes/client-node';

const GROUP = 'jobset.x-k8s.io', VERSION = 'v1alpha2', PLURAL = 'jobsets', NS = 'default';
const deadline = (ms, what) => new Promise((_, reject) => setTimeout(() => reject(new Error(`timed out: ${what}`)), ms));

const kc = new k8s.KubeConfig();
kc.loadFromDefault();
const core = kc.makeApiClient(k8s.CoreV1Api);
const custom = kc.makeApiClient(k8s.CustomObjectsApi);
const out = { server: kc.getCurrentCluster().server, informer: [], watch: [] };

const informer = k8s.makeInformer(kc, `/api/v1/namespaces/${NS}/pods`,
  () => core.listNamespacedPod({ namespace: NS }));
const podsSeen = new Promise((resolve) => {
  informer.on('add', (pod) => { out.informer.push(pod.metadata.name); if (out.informer.length === 2) resolve(); });
});
let stopping = false;  // stop() aborts the informer's own watch: not an error
informer.on('error', (err) => { if (!stopping) out.informerError = String(err); });
await informer.start();

const watch = new k8s.Watch(kc);
let watchDone;
const jobsetSeen = new Promise((resolve, reject) => {
  watch.watch(`/apis/${GROUP}/${VERSION}/namespaces/${NS}/${PLURAL}`, {},
    (type, obj) => { out.watch.push(`${type} ${obj.metadata.name}`); resolve(); },
    (err) => { if (err) reject(err); })
    .then((req) => { watchDone = req; }, reject);
});

const body = JSON.parse(process.env.JOBSET);
const created = await custom.createNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: NS,
  plural: PLURAL, body });
out.created = { name: created.metadata.name, uid: Boolean(created.metadata.uid),
  managers: created.metadata.managedFields.map((m) => m.manager) };

await Promise.race([Promise.all([podsSeen, jobsetSeen]), deadline(20000, 'informer and watch events')]);
out.informer.sort();

try {
  await core.readNamespacedConfigMap({ name: 'absent', namespace: NS });
} catch (err) {
  out.notFound = { code: err.code, body: typeof err.body === 'string' ? JSON.parse(err.body) : err.body };
}
stopping = true;
await informer.stop();
if (watchDone) watchDone.abort();
console.log(JSON.stringify(out));
process.exit(0);
