"""weft.script: TVMScript's names (`from weft.script import tir as T`)."""

from . import tir  # noqa: F401
