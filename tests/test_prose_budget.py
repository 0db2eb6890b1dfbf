"""The prose budget of issue 42, enforced on the site built from the committed results.

How a page is measured (the method of the project's ``prose_stats.py``, implemented again here):

* A page is a built ``**/index.html`` outside ``notebooks/``, ``search/`` and ``assets/``. Its prose is
  the text of the ``<p>`` and ``<li>`` elements inside ``<article>``, leaving out whatever sits in
  ``<pre>``, ``<table>``, ``<svg>``, ``<figure>``, ``<script>``, ``<style>`` or ``<nav>``. A ``<p>`` or
  ``<li>`` inside another is part of the outer one's block. Each inline ``<code>`` counts as one
  word, whatever it holds.
* Words are the block texts, joined, split on whitespace.
* A sentence ends at the end of a block, and at ``.``, ``!`` or ``?`` followed by whitespace and a
  capital letter, a digit, an opening parenthesis or bracket, a backtick, an asterisk or an
  opening quote. A piece of fewer than three words is not counted as a sentence.
* Parentheses are the count of ``(`` in the prose, per 100 words.
* The answer box is the first top-level admonition (a ``div.admonition`` or a ``<details>``) whose
  text, title first, starts "The answer"; its words are all of its text outside tables and code,
  each ``<code>`` one word.
* A figure is a number with a unit (``×``, ``ns``, ``µs``, ``ms``, ``s``, ``B``, ``KiB``, ``MiB``,
  ``GiB``), as ``prose_stats.py`` counts them, with one difference the rule needs ("at most three
  figures, each with its interval"): an interval belongs to the figure before it and is not counted
  again, and an interval standing for a figure of its own ("inconclusive here (…)", "the same
  within 3%", a growth range that holds zero) counts as one. ``prose_stats.py`` counts
  ``12× faster [10–14×]`` as two figures; this test counts it as one.
* A home-page question is an item (``<li>``) of the home page's article that opens, before any other
  text, with a link (bold or not) to a page of the Questions section of ``mkdocs.yml``'s nav: the
  question and its short answer, counted whole.
* A golden rule is an item of the first ordered list on the golden-rules page; its words are
  counted without its figures (each number with a unit, and each interval) and without the link
  that closes it (to the page that measured it), so that "20 words plus its figure" reads as at
  most 20 words besides them.

The measuring code's own tests below check it on small pages that break each rule.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml

from conftest import REPO
from tfspeedlab.site.interval_forms import find_intervals

# The budget, per page of the built site. TensorFlow's own guides (function, intro_to_graphs,
# data_performance, mixed_precision, profiler, gpu_performance_analysis), read the same way:
# mean sentence 15.1-20.0 words (median 17.7), sentences over 35 words 1.7-4.8% (median 3.6%),
# parentheses 0.35-1.25 per 100 words (median 0.6); their "main takeaways" run 30-60 words.
MAX_MEAN_SENTENCE_WORDS = 18
LONG_SENTENCE_WORDS = 35
MAX_LONG_SENTENCE_SHARE = 0.05
MAX_PARENTHESES_PER_100_WORDS = 1.0
MAX_ANSWER_WORDS = 70
MAX_ANSWER_FIGURES = 3
MAX_QUESTION_WORDS = 30
MAX_RULE_WORDS = 20  # besides its figures
# The whole site's prose: a third below the 39,000 words of c6851c7.
MAX_SITE_WORDS = 26_000

_SKIP = frozenset({"pre", "table", "svg", "figure", "script", "style", "nav"})
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\[`*“\"])")
_FIGURE = re.compile(r"\d+(?:\.\d+)?\s*×|\d+(?:\.\d+)?\s*(?:ns|µs|ms|s|B|KiB|MiB|GiB)\b")
# Interval forms that stand for a figure of their own; a bracket belongs to the figure before it.
_OWN_FIGURE_FORMS = frozenset({"range holding 1×", "within a percentage", "growth that holds zero", "steady within"})


@dataclass
class Block:
    """A ``<p>`` or ``<li>``: its text, and the link that opens it (before any other text), if any."""

    text: str
    tag: str
    opening_link: str | None = None
    ordered_list: int | None = None  # which <ol> of the article holds it, counted from 0
    closing_link: str = ""  # the text of the link that ends it, if one does


@dataclass
class Page:
    blocks: list[Block] = field(default_factory=list)
    boxes: list[str] = field(default_factory=list)  # each top-level admonition's text


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.page = Page()
        self.article = 0
        self.skip = 0
        self.code = 0
        self.block: list[str] | None = None
        self.block_depth = 0
        self.block_info: Block | None = None
        self.box: list[str] | None = None
        self.box_depth = 0
        self.lists: list[tuple[str, int | None]] = []
        self.ordered = -1
        self.link: list[str] | None = None  # the text of the link being read, inside a block
        self.last_link = ""

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "article":
            self.article += 1
        if not self.article:
            return
        if tag in _SKIP:
            self.skip += 1
        if tag in ("ul", "ol"):
            if tag == "ol":
                self.ordered += 1
            self.lists.append((tag, self.ordered if tag == "ol" else None))
        classes = (attributes.get("class") or "").split()
        if tag in ("div", "details"):
            if self.box is None and ("admonition" in classes or tag == "details"):
                self.box, self.box_depth = [], 1
            elif self.box is not None:
                self.box_depth += 1
        if tag in ("p", "li") and not self.skip:
            if self.block is None:
                self.block, self.block_depth = [], 1
                in_list = self.lists[-1][1] if tag == "li" and self.lists else None
                self.block_info = Block("", tag, ordered_list=in_list)
            else:
                self.block_depth += 1
        if tag == "a" and self.block is not None and not "".join(self.block).strip() and self.block_info:
            if self.block_info.opening_link is None:
                self.block_info.opening_link = attributes.get("href")
        if tag == "a" and self.block is not None:
            self.link = []
        if tag == "code":
            self.code += 1

    def handle_endtag(self, tag):
        if not self.article:
            return
        if tag == "article":
            self.article -= 1
        if tag in _SKIP and self.skip:
            self.skip -= 1
        if tag in ("ul", "ol") and self.lists:
            self.lists.pop()
        if tag == "code" and self.code:
            self.code -= 1
            if self.block is not None and not self.skip:
                self.block.append(" code ")
            if self.link is not None and not self.skip:
                self.link.append(" code ")
            if self.box is not None and not self.skip:
                self.box.append(" code ")
        if tag == "a" and self.link is not None:
            self.last_link, self.link = " ".join("".join(self.link).split()), None
        if tag in ("p", "li") and self.block is not None:
            self.block_depth -= 1
            if not self.block_depth:
                self.block_info.text = " ".join("".join(self.block).split())
                if self.last_link and self.block_info.text.endswith(self.last_link):
                    self.block_info.closing_link = self.last_link
                self.last_link = ""
                self.page.blocks.append(self.block_info)
                self.block, self.block_info = None, None
        if tag in ("div", "details") and self.box is not None:
            self.box_depth -= 1
            if not self.box_depth:
                self.page.boxes.append(" ".join("".join(self.box).split()))
                self.box = None

    def handle_data(self, data):
        if not self.article or self.code or self.skip:
            return
        if self.block is not None:
            self.block.append(data)
        if self.link is not None:
            self.link.append(data)
        if self.box is not None:
            self.box.append(data)


def read_page(html: str) -> Page:
    reader = _Reader()
    reader.feed(html)
    reader.close()
    return reader.page


def sentences(page: Page) -> list[str]:
    return [piece for block in page.blocks if block.text for piece in _SENTENCE_END.split(block.text)
            if len(piece.split()) >= 3]


def word_count(text: str) -> int:
    return len(text.split())


def figure_count(text: str) -> int:
    """Figures in ``text``: numbers with a unit, an interval counted with its figure (see above)."""
    found = list(find_intervals(text))
    own = sum(one.form.name in _OWN_FIGURE_FORMS for one in found)
    for one in reversed(found):
        text = text[:one.start] + " " + text[one.end:]
    return len(_FIGURE.findall(text)) + own


def words_besides_figures(text: str) -> int:
    for one in reversed(list(find_intervals(text))):
        text = text[:one.start] + " " + text[one.end:]
    return word_count(_FIGURE.sub(" ", text))


@dataclass(frozen=True)
class Measure:
    words: int
    sentences: int
    mean_sentence: float
    long_share: float
    parentheses_per_100: float
    answer_words: int
    answer_figures: int


def measure(page: Page) -> Measure | None:
    """A page's figures, or None for a page with no sentence."""
    found = sentences(page)
    if not found:
        return None
    text = " ".join(block.text for block in page.blocks if block.text)
    words = word_count(text)
    lengths = [word_count(sentence) for sentence in found]
    answer = next((box for box in page.boxes if box.lower().startswith("the answer")), "")
    return Measure(words, len(found), statistics.mean(lengths),
                   sum(length > LONG_SENTENCE_WORDS for length in lengths) / len(lengths),
                   100 * text.count("(") / words, word_count(answer), figure_count(answer))


def question_pages() -> set[str]:
    """The pages of the nav's Questions section, as the home page links them (``tf1-vs-tf2/``)."""
    config = yaml.load((REPO / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_IgnoreTags)
    section = next(entry["Questions"] for entry in config["nav"] if isinstance(entry, dict) and "Questions" in entry)
    return {Path(next(iter(item.values()))).stem + "/" for item in section}


class _IgnoreTags(yaml.SafeLoader):
    """mkdocs.yml's ``!relative`` and ``!!python/name`` tags read as plain values."""


_IgnoreTags.add_multi_constructor("", lambda loader, suffix, node: None)


def home_questions(page: Page, questions: set[str]) -> list[str]:
    return [block.text for block in page.blocks
            if block.tag == "li" and block.opening_link and block.opening_link.removeprefix("./") in questions]


def golden_rules(page: Page) -> list[str]:
    """Each rule's text, without the link that closes it (to the page that measured it)."""
    return [block.text.removesuffix(block.closing_link).rstrip() for block in page.blocks
            if block.tag == "li" and block.ordered_list == 0]


# ------------------------------------------------------------ the measuring code


def article(body: str) -> Page:
    return read_page(f"<html><nav><p>Not the article.</p></nav><article>{body}</article></html>")


def test_a_long_sentence_is_caught_and_a_block_ends_a_sentence():
    long = "Long " + " ".join(["word"] * 39) + "."
    found = measure(article(f"<p>Short one here. {long} Then three more.</p>\n<li>An item without a stop</li>"))
    assert found.sentences == 4 and found.long_share == 0.25
    assert found.words == 3 + 40 + 3 + 5


def test_a_sentence_ends_only_before_a_capital_digit_or_bracket():
    found = sentences(article("<p>It took 1.5 ms. the same sentence goes on. (A new one starts.) 2 more here.</p>"))
    # Not after a closing parenthesis: the stop must stand right before the space.
    assert found == ["It took 1.5 ms. the same sentence goes on.", "(A new one starts.) 2 more here."]


def test_parentheses_are_counted_per_hundred_words():
    found = measure(article("<p>" + " ".join(["word"] * 48) + " (an aside) and (another).</p>"))
    assert found.words == 52 and found.parentheses_per_100 == pytest.approx(200 / 52)


def test_code_counts_as_one_word_and_tables_and_listings_are_not_prose():
    found = measure(article("<p>Call <code>tf.function(jit_compile=True) ( ( (</code> on it now.</p>"
                            "<table><tr><td><p>a cell of many words that are not counted</p></td></tr></table>"
                            "<pre><p>nor these words in a listing</p></pre>"))
    assert found.words == 5 and found.parentheses_per_100 == 0


def test_the_answer_box_is_counted_whole_with_its_figures():
    # As Python-Markdown writes it: a line break between blocks.
    box = ('<div class="admonition success">\n<p class="admonition-title">The answer</p>\n'
           "<p>Call the model directly: it was 12.1× faster [10.2–14.3×] and took 0.35 ms [0.33–0.38 ms].</p>\n"
           "<ul>\n<li>Loading was inconclusive here (1.25× slower to 1.10× faster).</li>\n"
           "<li>Memory grew 12 KiB per call [10–14 KiB].</li>\n</ul>\n</div>")
    found = measure(article('<div class="admonition note"><p class="admonition-title">Not it</p><p>1× 2×</p></div>'
                            f"{box}<p>Outside the box 3.0× faster.</p>"))
    assert found.answer_figures == 4
    assert found.answer_words == word_count("The answer Call the model directly: it was 12.1× faster [10.2–14.3×] "
                                            "and took 0.35 ms [0.33–0.38 ms]. Loading was inconclusive here (1.25× "
                                            "slower to 1.10× faster). Memory grew 12 KiB per call [10–14 KiB].")


@pytest.mark.parametrize("text, figures", [("12× faster [10–14×]", 1), ("the same within 3%", 1),
                                           ("inconclusive here (1.25× slower to 1.10× faster)", 1),
                                           ("took 5.1 ms and 3.2 s, 4 MiB", 3), ("no figure at all, 1.5", 0)])
def test_a_figure_with_its_interval_counts_once(text, figures):
    assert figure_count(text) == figures


def test_home_questions_are_the_items_that_open_with_a_link_to_a_question_page():
    page = article('<ul><li><strong><a href="tf1-vs-tf2/">Why is TF2 slower?</a></strong> Because of it.</li>'
                   '<li>Text first, then <a href="predict-loop/">a link</a>.</li>'
                   '<li><a href="runners/">Not a question page</a> here.</li></ul>')
    assert home_questions(page, {"tf1-vs-tf2/", "predict-loop/"}) == ["Why is TF2 slower? Because of it."]
    assert "tf1-vs-tf2/" in question_pages() and "runners/" not in question_pages()


def test_golden_rules_are_the_first_ordered_lists_items_counted_without_their_figures():
    page = article("<ul><li>Not a rule.</li></ul><ol><li><strong>Wrap hot code</strong>: a step was 12.1× faster "
                   "[10.2–14.3×] traced.\n<ul><li>nested note</li></ul></li><li>Second rule. "
                   '<a href="x/">The page that measured it</a></li></ol>'
                   "<ol><li>Another list.</li></ol>")
    rules = golden_rules(page)
    assert rules == ["Wrap hot code: a step was 12.1× faster [10.2–14.3×] traced. nested note", "Second rule."]
    assert words_besides_figures(rules[0]) == word_count("Wrap hot code: a step was faster traced. nested note")


# ------------------------------------------------------------ the budget, on the built site


def site_pages(site: Path) -> dict[str, Page]:
    pages = {}
    for path in sorted(site.rglob("index.html")):
        name = path.parent.relative_to(site).as_posix()
        if name.split("/")[0] in ("notebooks", "search", "assets"):
            continue
        pages[name if name != "." else "(home)"] = read_page(path.read_text(encoding="utf-8"))
    return pages


@pytest.fixture(scope="module")
def measured(committed_site) -> dict[str, Measure]:
    return {name: found for name, page in site_pages(committed_site).items() if (found := measure(page))}


def over(measured: dict[str, Measure], value, limit) -> dict[str, float]:
    return {name: round(value(found), 3) for name, found in measured.items() if value(found) > limit}


def test_every_page_was_measured(measured):
    assert {"(home)", "golden-rules", "fair-timing", "tf1-vs-tf2"} <= set(measured)


def test_mean_sentence_per_page(measured):
    assert not over(measured, lambda found: found.mean_sentence, MAX_MEAN_SENTENCE_WORDS)


def test_share_of_long_sentences_per_page(measured):
    assert not over(measured, lambda found: found.long_share, MAX_LONG_SENTENCE_SHARE)


def test_parentheses_per_page(measured):
    assert not over(measured, lambda found: found.parentheses_per_100, MAX_PARENTHESES_PER_100_WORDS)


def test_answer_boxes(measured):
    assert not over(measured, lambda found: found.answer_words, MAX_ANSWER_WORDS)
    assert not over(measured, lambda found: found.answer_figures, MAX_ANSWER_FIGURES)


def test_home_page_questions(committed_site):
    found = home_questions(read_page((committed_site / "index.html").read_text(encoding="utf-8")), question_pages())
    assert found, "no question found on the home page: see this module's docstring for what one is"
    assert not [question for question in found if word_count(question) > MAX_QUESTION_WORDS]


def test_golden_rules(committed_site):
    rules = golden_rules(read_page((committed_site / "golden-rules" / "index.html").read_text(encoding="utf-8")))
    assert rules, "no golden rule found: see this module's docstring for what one is"
    assert not [rule for rule in rules if words_besides_figures(rule) > MAX_RULE_WORDS]


def test_site_prose_in_words(measured):
    assert sum(found.words for found in measured.values()) <= MAX_SITE_WORDS
