"""What ``tfspeedlab diagnose model.keras --batch N`` found, and what to do about it: the names other
code uses, gathered from the modules that each do one job.

- ``model_diagnosis_core``: each call's raw blocks, the speed-ups derived from them (predict rungs
  over ``predict``, training calls over ``train_on_batch``), and the verdict in the calls' names;
- ``model_diagnosis_codec``: the JSON (the raw blocks; the ratios are recomputed on load);
- ``diagnosis_report``: the terminal report, as for a function's diagnosis.
"""

from tfspeedlab.analysis.diagnosis_report import model_text_report
from tfspeedlab.analysis.model_diagnosis_codec import model_from_json, model_to_json
from tfspeedlab.analysis.model_diagnosis_core import (ADVICE, BASELINES, CALLS, FIT_BATCHES, FROM_FILE, FROM_TFSPEEDLAB,
                                                      KIND, PAGES, PREDICT, SPOKEN, TRAINING, ModelCall, ModelDiagnosis,
                                                      model_verdict)

__all__ = ["ADVICE", "BASELINES", "CALLS", "FIT_BATCHES", "FROM_FILE", "FROM_TFSPEEDLAB", "KIND", "PAGES", "PREDICT",
           "SPOKEN", "TRAINING", "ModelCall", "ModelDiagnosis", "model_from_json", "model_text_report",
           "model_to_json", "model_verdict"]
