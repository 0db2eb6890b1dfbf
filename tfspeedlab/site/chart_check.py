"""Whether an SVG chart holds nothing but a drawing: what the build cache checks before it publishes a
chart an earlier build left under ``.cache/tfspeedlab/``.

Anyone who can write to the cache can plant an SVG there, and a chart opened on its own (a link, a new
tab) runs its scripts. So a kept chart is published only if it is made of what matplotlib writes:
its prolog, then elements and attributes from an allow-list (nothing that runs, links or fetches),
references only inside the file (``#id``) or to an embedded PNG, and styles that load nothing. A
denylist would miss what it did not think of (``<foreignObject>``, ``<animate>``, ``<set>``, an
``xml-stylesheet`` instruction, a CSS ``url()``); anything unlisted here fails, and the chart is
drawn again from its results.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree

# What matplotlib's SVG backend writes before the ``<svg>`` element, byte for byte: a document type
# with nothing declared in it (no entities).
PROLOG = ('<?xml version="1.0" encoding="utf-8" standalone="no"?>\n'
          '<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN"\n'
          '  "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n')
SVG, XLINK = "http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"
RDF, CC, DC = ("http://www.w3.org/1999/02/22-rdf-syntax-ns#", "http://creativecommons.org/ns#",
               "http://purl.org/dc/elements/1.1/")
# Drawing, grouping, clipping, text and the metadata block: none of them runs, links or fetches.
ELEMENTS = frozenset(
    {f"{{{SVG}}}{name}" for name in ("svg", "g", "defs", "use", "path", "rect", "circle", "ellipse", "line",
                                     "polyline", "polygon", "text", "tspan", "clipPath", "pattern", "image",
                                     "linearGradient", "radialGradient", "stop", "style", "metadata", "title",
                                     "desc")}
    | {f"{{{RDF}}}RDF", f"{{{CC}}}Work", f"{{{CC}}}Agent"}
    | {f"{{{DC}}}{name}" for name in ("type", "format", "date", "creator", "title")})
# Geometry, identity and presentation; ``href`` and ``rdf:resource`` are checked by value below.
ATTRIBUTES = frozenset({
    "id", "d", "style", "transform", "clip-path", "x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "rx", "ry",
    "width", "height", "viewBox", "version", "points", "fill", "stroke", "opacity", "patternUnits",
    "gradientUnits", "offset", "type", "preserveAspectRatio",
})
# The one outside address matplotlib writes: the metadata's type, which nothing loads.
RDF_TYPE = "http://purl.org/dc/dcmitype/StillImage"
# An ``href``: an element of the same file, or a PNG embedded in it (an image drawn into the chart).
INTERNAL_HREF = re.compile(r"#[A-Za-z_][\w.-]*|data:image/png;base64,[A-Za-z0-9+/=\s]*")
# In a style: a ``url()`` that is not ``url(#id)``, an import, an escape (which could spell either),
# a script address or an old IE expression.
UNSAFE_STYLE = re.compile(r"url\((?!#[\w.-]+\))|@import|\\|javascript:|expression\(|<", re.IGNORECASE)


def problem(svg: str) -> str | None:
    """What makes ``svg`` more than a drawing, in a phrase; None for a chart fit to publish."""
    if not svg.startswith(PROLOG):
        return "it does not start as matplotlib writes an SVG"
    body = svg[len(PROLOG):]
    # No second document type (entities), processing instruction (a stylesheet) or CDATA section.
    if "<!" in body or "<?" in body:
        return "it holds a declaration or a processing instruction"
    try:
        root = ElementTree.fromstring(body)
    except ElementTree.ParseError as error:
        return f"it is not well-formed XML ({error})"
    for element in root.iter():
        if element.tag not in ELEMENTS:
            return f"it holds a <{_local(element.tag)}> element"
        if element.tag == f"{{{SVG}}}style" and UNSAFE_STYLE.search(element.text or ""):
            return "its stylesheet loads or escapes something"
        for name, value in element.attrib.items():
            if (found := _attribute_problem(name, value)) is not None:
                return f"<{_local(element.tag)}> {found}"
    return None


def _attribute_problem(name: str, value: str) -> str | None:
    if name in ("href", f"{{{XLINK}}}href"):
        return None if INTERNAL_HREF.fullmatch(value) else f"links outside the file ({value[:60]!r})"
    if name == f"{{{RDF}}}resource":
        return None if value == RDF_TYPE else f"names an outside resource ({value[:60]!r})"
    if name not in ATTRIBUTES:  # an event handler (onload=…) among them
        return f"has an attribute {_local(name)!r}"
    if UNSAFE_STYLE.search(value):
        return f"has an attribute {name!r} that loads or escapes something"
    return None


def _local(name: str) -> str:
    return name.rpartition("}")[2]
