"""One root seed split into named, independent random streams.

``SeedTree(seed).stream("kubelet/node-3")`` derives a child seed with BLAKE2b, so adding a draw
in one component never shifts another component's draws, and nothing depends on
``PYTHONHASHSEED`` (``hash()`` is never used).
"""

from __future__ import annotations

import hashlib
import random

__all__ = ["KUBE_NAME_ALPHABET", "SeedTree", "Stream"]

KUBE_NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
"""``k8s.io/apimachinery/pkg/util/rand``: no vowels (no words), no confusable 0/1/3."""

_ALPHABET_SIZE = len(KUBE_NAME_ALPHABET)
_ALPHABET_BITS = _ALPHABET_SIZE.bit_length()

_UUID_KEEP = ~((0xC000 << 48) | (0xF000 << 64))
"""What a drawn 128-bit number keeps of its own: all but the variant and version bits."""
_UUID_V4 = (0x8000 << 48) | (4 << 76)
"""RFC 4122 variant (``10``) and version 4, as ``uuid.UUID(int=..., version=4)`` sets them."""


class Stream:
    """A deterministic random stream with the few draws fakekube needs."""

    __slots__ = ("_rng",)

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def name_suffix(self, length: int = 5) -> str:
        """``utilrand.String(n)``: the suffix appended to ``generateName``. The same draws and
        letters as ``rng.choice(KUBE_NAME_ALPHABET)`` per letter (CPython's ``_randbelow``:
        ``getrandbits`` of the alphabet size's bit length until a value is below the size),
        without its two calls per letter."""
        getrandbits = self._rng.getrandbits
        letters = []
        for _ in range(length):
            drawn = getrandbits(_ALPHABET_BITS)
            while drawn >= _ALPHABET_SIZE:
                drawn = getrandbits(_ALPHABET_BITS)
            letters.append(KUBE_NAME_ALPHABET[drawn])
        return "".join(letters)

    def uid(self) -> str:
        """An RFC 4122 version-4 UUID string drawn from this stream (``str(uuid.UUID(int=bits,
        version=4))`` for 128 drawn bits, formatted directly: a pod, an Event and a Job each take one)."""
        bits = (self._rng.getrandbits(128) & _UUID_KEEP) | _UUID_V4
        h = f"{bits:032x}"
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"

    def random(self) -> float:
        return self._rng.random()

    def randrange(self, stop: int) -> int:
        return self._rng.randrange(stop)


class SeedTree:
    """Derives independent streams from one root seed."""

    __slots__ = ("seed",)

    def __init__(self, seed: int) -> None:
        self.seed = int(seed)

    def child_seed(self, name: str) -> int:
        digest = hashlib.blake2b(f"{self.seed}\x00{name}".encode(), digest_size=8).digest()
        return int.from_bytes(digest, "big")

    def stream(self, name: str) -> Stream:
        return Stream(self.child_seed(name))
