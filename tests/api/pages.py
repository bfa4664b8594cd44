"""Reading a hosted page in tests: its elements in document order, their attributes and text."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any


@dataclass
class Element:
    tag: str
    attributes: dict[str, str]
    text: str = ""


@dataclass
class Page:
    """What the tests read of a page: its elements in document order, their attributes and text."""

    elements: list[Element] = field(default_factory=list)

    def by_id(self, element_id: str) -> Element:
        found = [element for element in self.elements if element.attributes.get("id") == element_id]
        assert len(found) == 1, f"{len(found)} elements with id {element_id!r}"
        return found[0]

    def text(self, element_id: str) -> str:
        return self.by_id(element_id).text

    def tags(self, tag: str) -> list[Element]:
        return [element for element in self.elements if element.tag == tag]

    def ids(self) -> list[str]:
        return [element.attributes["id"] for element in self.elements if "id" in element.attributes]


class PageParser(HTMLParser):
    """Collect every element with its attributes and the text inside it (nested text included)."""

    VOID = frozenset({"meta", "input", "br", "img", "link", "hr"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.page = Page()
        self._open: list[Element] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {name: value or "" for name, value in attrs})
        self.page.elements.append(element)
        if tag not in self.VOID:
            self._open.append(element)

    def handle_endtag(self, tag: str) -> None:
        while self._open:
            if self._open.pop().tag == tag:
                break

    def handle_data(self, data: str) -> None:
        for element in self._open:
            element.text += data


def parse_page(response: Any) -> Page:
    parser = PageParser()
    parser.feed(response.get_data(as_text=True))
    parser.close()
    for element in parser.page.elements:
        element.text = " ".join(element.text.split())
    return parser.page
