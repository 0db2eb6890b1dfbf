"""The CPU settings and mixed-precision pages' tables: each setting against the default, each
precision policy's time and loss, and whether oneDNN ran by default."""

from __future__ import annotations

from tfspeedlab.render.context import Context, Runner, table_directive
from tfspeedlab.render.registry import directive
from tfspeedlab.settings import tables as settings_tables

table_directive("settings_summary", "Per workload of a grid: the baseline row's time, and the other rows grouped as "
                "clearly slower, faster, or the same or inconclusive against it, each with its factor.",
                settings_tables.settings_summary, __name__)
table_directive("precision_check", "Per workload and precision policy: the time, and the loss after the same training "
                "steps (or a matmul's difference from float32's).", settings_tables.precision_check, __name__)


@directive("onednn_default", "Whether TensorFlow ran its oneDNN operations by default where a grid was measured, as "
                             "each baseline process recorded TensorFlow's decision: ``on``, ``off`` or ``not recorded``.")
def onednn_default(context: Context, example: str, *, runner: Runner = "cpu") -> str:
    return settings_tables.onednn_default(context.lookup(example, runner))
