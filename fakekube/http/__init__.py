"""HTTP front end: serve a FakeCluster to real clients (kubectl, kubernetes, kopf, lightkube, kr8s).

    with cluster.serve(port=0, clock="manual") as server:
        server.url, server.kubeconfig
"""
