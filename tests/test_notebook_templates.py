"""nbconvert's templates are compiled once per process, and a notebook page is the same HTML."""

from pathlib import Path

import jinja2
from mkdocs_jupyter import nbconvert2
from nbconvert.exporters.templateexporter import TemplateExporter

from tfspeedlab.site import notebook_templates

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "small_ops.ipynb"


def test_a_second_notebook_compiles_no_template_and_renders_the_same(monkeypatch):
    before = nbconvert2.nb2html(str(NOTEBOOK))
    # Undone after the test: the hook and the shared cache are the process's.
    monkeypatch.setattr(TemplateExporter, "_create_environment", TemplateExporter._create_environment)
    monkeypatch.setattr(notebook_templates, "SHARED", notebook_templates.SharedBytecode())
    compiled = []
    compile_template = jinja2.Environment.compile

    def counting(environment, source, name=None, *args, **kwargs):
        compiled.append(name)
        return compile_template(environment, source, name, *args, **kwargs)

    monkeypatch.setattr(jinja2.Environment, "compile", counting)
    assert notebook_templates.share_compiled_templates()
    first = nbconvert2.nb2html(str(NOTEBOOK))
    assert compiled  # the shared cache was empty: each template compiled once
    compiled.clear()
    second = nbconvert2.nb2html(str(NOTEBOOK))
    assert compiled == []
    assert first == second == before
