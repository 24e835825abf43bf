"""weft.script: TVMScript's names (`from weft.script import tir as T`, `ir as I`)."""

from . import ir, tir  # noqa: F401
