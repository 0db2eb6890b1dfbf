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

from collections.abc import Mapping
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


def cpu_description(environment: Mapping[str, Any]) -> str:
    """``AMD EPYC (family 26, model 2, stepping 1; AVX2, AVX-512, AVX512_BF16, AVX-VNNI)``: the model
    name with what tells it apart, as recorded."""
    ids = [f"{label} {environment[name]}" for name, label in
           zip(CPU_ID_FIELDS, ("family", "model", "stepping")) if environment.get(name) is not None]
    flags = [_FLAG_NAMES.get(flag, flag.upper()) for flag in environment.get("cpu_flags") or ()
             if flag in _FLAG_NAMES]
    detail = "; ".join(part for part in (", ".join(ids), ", ".join(dict.fromkeys(flags))) if part)
    return f"{environment.get('cpu_model', 'unknown CPU')} ({detail})" if detail else str(
        environment.get("cpu_model", "unknown CPU"))


# The instruction sets a reader needs to know the kernels by, named as vendors name them
# (sse4_2, fma and f16c are on every x86 CPU these results come from, and left out).
_FLAG_NAMES = {"avx2": "AVX2", "avx512f": "AVX-512", "avx512_bf16": "AVX512_BF16", "avx512_vnni": "AVX512_VNNI",
               "avx512_fp16": "AVX512_FP16", "avx_vnni": "AVX-VNNI", "amx_tile": "AMX", "amx_bf16": "AMX",
               "amx_int8": "AMX"}
