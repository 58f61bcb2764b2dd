"""A tokenizer with no vocabulary fitted on our sites: hashed word pieces, so no text is ever out of vocabulary.

Text is lower-cased and split into runs of letters, single digits and single other characters;
each letter run is hashed (CRC-32, stable across processes) into a bucket. Digits get ids of
their own, so numbers read the same on every site and every outside benchmark. Id 0 is padding.
"""

from __future__ import annotations

import functools
import re
import struct
import zlib
from typing import Any

import numpy as np

VOCAB_SIZE = 8192
PAD = 0
DIGITS = 1  # ids 1..10 are the digits 0..9
FIRST_HASHED = 11
_PIECE = re.compile(r"[a-z]+|[0-9]|[^\sa-z0-9]")


@functools.lru_cache(maxsize=65536)
def piece_id(piece: str) -> int:
    """The id of one piece (a word, a digit or a symbol)."""
    if len(piece) == 1 and piece.isdigit():
        return DIGITS + int(piece)
    return FIRST_HASHED + zlib.crc32(piece.encode("utf-8")) % (VOCAB_SIZE - FIRST_HASHED)


def pieces(text: str) -> list[str]:
    """The pieces of ``text``."""
    return _PIECE.findall(text.lower())


def encode(text: str, length: int) -> np.ndarray:
    """``text`` as ``length`` token ids (cut or padded with 0)."""
    ids = [piece_id(p) for p in pieces(text)[:length]]
    out = np.zeros(length, dtype=np.int32)
    out[: len(ids)] = ids
    return out


@functools.lru_cache(maxsize=131072)
def encode_row(text: str, length: int) -> bytes:
    """``encode(text, length)`` as raw int32 bytes, memoised: a page's texts repeat from state to state,
    and rows of bytes join into a table with one copy."""
    ids = [piece_id(p) for p in pieces(text)[:length]]
    return _packer(length)(*ids, *(PAD,) * (length - len(ids)))


@functools.lru_cache(maxsize=None)
def _packer(length: int) -> Any:
    """Packs ``length`` ids as native int32 bytes (the bytes of ``np.int32`` arrays), without numpy."""
    assert np.dtype(np.int32).itemsize == struct.calcsize("i") == 4
    return struct.Struct(f"={length}i").pack
