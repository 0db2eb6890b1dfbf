"""``tfspeedlab diagnose``: a reader's function, saved model or backends timed, the verdict and the
report, the saved diagnoses the site shows, and their directives. (The package is ``diagnosis``:
``tfspeedlab.diagnose`` is the API function.)"""
