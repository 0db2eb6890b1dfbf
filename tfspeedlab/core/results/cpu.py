"""Which CPU a results file was measured on, told apart well enough to compare two files.

A cloud VM's model name can hide which CPU it is: this project's runner has reported "AMD EPYC"
on two generations, one without and one with AVX-VNNI, whose speed-ups differ by more than two
sittings of one do (the predict ladder's speed-ups over ``predict`` 40–60% apart). So two files
are on the same CPU only when the model name, the recorded instruction sets and, where both
record them, the family, model number and stepping agree. A file that recorded no instruction
sets (one written before they were) matches only another such file of the same model name: set
against a file that did record them, it cannot be told to be the same CPU.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

# The /proc/cpuinfo fields beside the model name that say which CPU it is.
CPU_ID_FIELDS = ("cpu_family", "cpu_model_number", "cpu_stepping")


def cpu_identity(environment: Mapping[str, Any]) -> tuple:
    """What tells this file's CPU apart: its model name, instruction sets (empty where the file recorded
    none), family, model number and stepping (None each where not recorded)."""
    return (environment.get("cpu_model"), tuple(sorted(environment.get("cpu_flags") or ())),
            *(environment.get(name) for name in CPU_ID_FIELDS))


def same_cpu(first: Mapping[str, Any], second: Mapping[str, Any]) -> bool:
    """Whether two files were measured on one CPU model (see the module's note)."""
    one, other = cpu_identity(first), cpu_identity(second)
    if one[:2] != other[:2]:
        return False
    # Family, model number and stepping are compared where both files record them.
    return all(a == b for a, b in zip(one[2:], other[2:]) if a is not None and b is not None)


def instruction_sets(environment: Mapping[str, Any]) -> str:
    """``AVX2, AVX-512, AVX512_BF16``: the instruction sets the file recorded, as vendors name them."""
    return ", ".join(_flag_names(environment)) or "not recorded"


def _family_and_model(environment: Mapping[str, Any]) -> tuple[Any, Any] | None:
    family, model = environment.get("cpu_family"), environment.get("cpu_model_number")
    return (family, model) if family is not None and model is not None else None


# What a vendor's model string carries that names no CPU model: trademarks, the word "Processor", a
# core count and the base clock ("Intel(R) Xeon(R) Processor", "AMD EPYC 7B13 64-Core Processor").
_NOT_A_NAME = re.compile(r"\((?:R|TM|tm)\)|\bProcessor\b|\b\d+-Core\b|@\s*[\d.]+\s*GHz")


def short_model_name(environment: Mapping[str, Any]) -> str:
    """``Intel Xeon``: the recorded model name without what names no model (``_NOT_A_NAME``)."""
    recorded = str(environment.get("cpu_model", "unknown CPU"))
    return " ".join(_NOT_A_NAME.sub(" ", recorded).split()) or recorded


def cpu_name(environment: Mapping[str, Any], known: Iterable[Mapping[str, Any]] = ()) -> str:
    """``AMD EPYC 25/1``: the one name every table and sentence gives a CPU model, short enough for a
    table's column on a phone, and never a repeat of the instruction sets its table gives beside it.
    The short model name (``short_model_name``) with its family and model number where the file
    recorded them; where it did not, those that the files in ``known`` measured on the same CPU model
    (``same_cpu``) recorded, if they all record one. Else the short name alone (``Intel Xeon``), unless
    ``known`` holds another CPU model of that short name, which would read the same: then the
    instruction sets that only this one has tell it apart (``Intel Xeon (AMX)``), or where it has none
    of its own, all of its sets. A reader can then match the rows of two tables: a re-measure that
    recorded no family reads as the committed file of its model does."""
    name = short_model_name(environment)
    ids = _family_and_model(environment)
    if ids is None:
        found = {found_ids for other in known
                 if (found_ids := _family_and_model(other)) is not None and same_cpu(environment, other)}
        ids = found.pop() if len(found) == 1 else None
    if ids is not None:
        return f"{name} {ids[0]}/{ids[1]}"
    own = _flag_names(environment)
    rivals = [other for other in known if short_model_name(other) == name
              and cpu_identity(other) != cpu_identity(environment) and other.get("cpu_flags")]
    if not rivals or not own:
        return name
    theirs = {flag for other in rivals for flag in _flag_names(other)}
    apart = [flag for flag in own if flag not in theirs] or own
    return f"{name} ({', '.join(apart)})"


def cpu_with_sets(environment: Mapping[str, Any], known: Iterable[Mapping[str, Any]] = ()) -> str:
    """``AMD EPYC 25/1 with AVX2``: the CPU's name in a sentence, with the instruction sets its kernels
    depend on (where the name is not already made of them, and the file recorded them)."""
    name, sets = cpu_name(environment, known), instruction_sets(environment)
    return name if sets == "not recorded" or name.endswith(f"({sets})") else f"{name} with {sets}"


@dataclass(frozen=True)
class CpuNames:
    """``cpu_name`` over the environments of every file a build reads: call it with one environment."""

    known: tuple[Mapping[str, Any], ...] = ()

    @classmethod
    def of(cls, environments: Iterable[Mapping[str, Any]]) -> CpuNames:
        """The names over these environments: one of each CPU as recorded (``cpu_identity``) that
        recorded its family and model number, or its instruction sets, is all a name is looked up in."""
        kept = {cpu_identity(environment): environment for environment in environments
                if _family_and_model(environment) is not None or environment.get("cpu_flags")}
        return cls(tuple(kept.values()))

    def __call__(self, environment: Mapping[str, Any]) -> str:
        return cpu_name(environment, self.known)

    def with_sets(self, environment: Mapping[str, Any]) -> str:
        return cpu_with_sets(environment, self.known)


def cpu_description(environment: Mapping[str, Any]) -> str:
    """``AMD EPYC (family 26, model 2, stepping 1; AVX2, AVX-512, AVX512_BF16, AVX-VNNI)``: the model
    name with what tells it apart, as recorded."""
    ids = [f"{label} {environment[name]}" for name, label in
           zip(CPU_ID_FIELDS, ("family", "model", "stepping")) if environment.get(name) is not None]
    detail = "; ".join(part for part in (", ".join(ids), ", ".join(_flag_names(environment))) if part)
    return f"{environment.get('cpu_model', 'unknown CPU')} ({detail})" if detail else str(
        environment.get("cpu_model", "unknown CPU"))


def _flag_names(environment: Mapping[str, Any]) -> list[str]:
    """The recorded instruction sets a reader needs, each once, as vendors name them."""
    return list(dict.fromkeys(_FLAG_NAMES[flag] for flag in environment.get("cpu_flags") or () if flag in _FLAG_NAMES))


# The instruction sets a reader needs to know the kernels by, named as vendors name them
# (sse4_2, fma and f16c are on every x86 CPU these results come from, and left out).
_FLAG_NAMES = {"avx2": "AVX2", "avx512f": "AVX-512", "avx512_bf16": "AVX512_BF16", "avx512_vnni": "AVX512_VNNI",
               "avx512_fp16": "AVX512_FP16", "avx_vnni": "AVX-VNNI", "amx_tile": "AMX", "amx_bf16": "AMX",
               "amx_int8": "AMX"}
