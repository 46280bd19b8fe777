"""The banker's page as ES modules (static/page/, no build step), read as text: each module
imports only what it uses and exports only what another imports, none imports itself back
(no cycle), every one is reached from main.js, kept by the service worker for a reload offline,
and served by the real server as JavaScript (a module script is refused with any other type).

A small JavaScript tokenizer (comments, strings, template literals, regular expressions) is
enough for the page's own code: the tests read only ``import``, ``export``, the names used and
the ``/* globals */`` comment that names what a module takes from the shared classic scripts."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp
import pytest
from babel.messages.extract import extract_from_dir

from companion.i18n.extract import KEYWORDS, METHODS
from tests.test_web_api import serving

STATIC = Path(__file__).resolve().parent.parent / "companion" / "web" / "static"
PAGE = STATIC / "page"
ENTRY = "main.js"
SHARED = {"t", "tn", "said", "word", "currentLanguage", "onLanguage", "keepLinkToken", "Keeper",
          "linkStatus"}
"""What the classic scripts loaded before the page (i18n.js, link-token.js, link-status.js,
keeper.js) define."""
JS_TYPES = {"text/javascript", "application/javascript"}
KEYWORDS_BEFORE_EXPRESSION = {"return", "typeof", "case", "in", "of", "new", "delete", "void",
                              "throw", "else", "do", "instanceof", "await", "yield"}
"""After these a ``/`` starts a regular expression, not a division."""


@dataclass
class Token:
    kind: str  # "name", "string", "template", "regex", "number", "punct", "comment"
    text: str
    line: int


def tokens(source: str) -> list[Token]:
    """The tokens of ``source``; a template literal's ``${...}`` parts are tokens too."""
    out: list[Token] = []
    i, n, line = 0, len(source), 1
    braces: list[str] = []  # "{" of code, or "${" of a template expression

    def expression_ends() -> bool:  # a "/" here divides (else it starts a regex)
        last = next((t for t in reversed(out) if t.kind != "comment"), None)
        if last is None:
            return False
        if last.kind == "name":
            return last.text not in KEYWORDS_BEFORE_EXPRESSION
        ends = ("number", "string", "template", "regex")
        return last.kind in ends or last.text in (")", "]", "}")

    def template_from(start: int) -> int:
        """Read template text from ``start`` (after ` or }); returns where it stopped."""
        j = start
        while j < n:
            ch = source[j]
            if ch == "\\":
                j += 2
                continue
            if ch == "`":
                return j + 1
            if source.startswith("${", j):
                braces.append("${")
                return j + 2
            j += 1
        raise ValueError("an unclosed template literal")

    while i < n:
        ch = source[i]
        start_line = line
        if ch in " \t\r\n":
            line += ch == "\n"
            i += 1
            continue
        if source.startswith("//", i):
            j = source.find("\n", i)
            j = n if j < 0 else j
            out.append(Token("comment", source[i:j], start_line))
        elif source.startswith("/*", i):
            j = source.index("*/", i) + 2
            out.append(Token("comment", source[i:j], start_line))
        elif ch in "\"'":
            j = i + 1
            while source[j] != ch:
                j += 2 if source[j] == "\\" else 1
            j += 1
            out.append(Token("string", source[i:j], start_line))
        elif ch == "`":
            j = template_from(i + 1)
            out.append(Token("template", source[i:j], start_line))
        elif ch == "}" and braces and braces[-1] == "${":
            braces.pop()
            j = template_from(i + 1)
            out.append(Token("template", source[i:j], start_line))
        elif ch == "/" and not expression_ends():
            j, in_class = i + 1, False
            while in_class or source[j] != "/":
                if source[j] == "\\":
                    j += 1
                elif source[j] == "[":
                    in_class = True
                elif source[j] == "]":
                    in_class = False
                j += 1
            j += 1
            while j < n and source[j].isalpha():
                j += 1
            out.append(Token("regex", source[i:j], start_line))
        elif ch.isalpha() or ch in "_$":
            j = re.compile(r"[\w$]*").match(source, i + 1).end()  # type: ignore[union-attr]
            out.append(Token("name", source[i:j], start_line))
        elif ch.isdigit():
            j = re.compile(r"[\w.]*").match(source, i + 1).end()  # type: ignore[union-attr]
            out.append(Token("number", source[i:j], start_line))
        else:
            three = source[i:i + 3]
            size = 3 if three in ("...", "===", "!==", ">>>", "**=", "&&=", "||=", "??=") else (
                2 if source[i:i + 2] in ("?.", "=>", "==", "!=", "<=", ">=", "&&", "||", "??",
                                         "++", "--", "+=", "-=", "*=", "/=", "**", "<<", ">>")
                else 1)
            j = i + size
            if ch == "{":
                braces.append("{")
            elif ch == "}":
                braces.pop()
            out.append(Token("punct", source[i:j], start_line))
        line += source.count("\n", i, j)
        i = j
    return out


@dataclass
class Module:
    path: str  # relative to page/, e.g. "editions/movie.js"
    imports: dict[str, list[str]] = field(default_factory=dict)  # module path -> names
    exports: list[str] = field(default_factory=list)
    used: set[str] = field(default_factory=set)  # names read or called in the body
    globals: list[str] = field(default_factory=list)  # its /* globals ... */ comment


def resolve(importer: str, spec: str) -> str:
    assert spec.startswith(("./", "../")) and spec.endswith(".js"), spec
    parts = list(Path(importer).parent.parts)
    for part in spec.split("/"):
        if part == "..":
            assert parts, f"{importer}: {spec} leaves page/"
            parts.pop()
        elif part != ".":
            parts.append(part)
    return "/".join(parts)


def read_module(path: Path) -> Module:
    rel = path.relative_to(PAGE).as_posix()
    module = Module(rel)
    toks = tokens(path.read_text())
    code = [t for t in toks if t.kind != "comment"]
    body: list[Token] = []
    i = 0
    while i < len(code):
        tok = code[i]
        if tok.kind == "name" and tok.text == "import" and (i == 0 or code[i - 1].text == ";"):
            if code[i + 1].kind == "string":  # import "./x.js";: for its listeners only
                spec, i = code[i + 1].text[1:-1], i + 2
                names: list[str] = []
            else:
                assert code[i + 1].text == "{", f"{rel}:{tok.line}: only import {{ ... }} is used"
                j = next(k for k in range(i, len(code)) if code[k].text == "}")
                names = [t.text for t in code[i + 2:j] if t.text != ","]
                assert all(re.fullmatch(r"[A-Za-z_$][\w$]*", x) for x in names) and \
                    "as" not in names, f"{rel}:{tok.line}: import {{ {names} }}"
                assert code[j + 1].text == "from", f"{rel}:{tok.line}"
                spec, i = code[j + 2].text[1:-1], j + 3
            assert code[i].text == ";", f"{rel}:{tok.line}: an import ends with ;"
            target = resolve(rel, spec)
            assert target not in module.imports, f"{rel}: {target} imported twice"
            module.imports[target] = names
            i += 1
            continue
        if tok.kind == "name" and tok.text == "export":
            j = i + 1 + (code[i + 1].text == "async")
            assert code[j].text in ("function", "const", "let", "class"), \
                f"{rel}:{tok.line}: only export function/const/let/class NAME is used"
            module.exports.append(code[j + 1].text)
            i += 1
            continue
        assert not (tok.kind == "name" and tok.text == "import"), f"{rel}:{tok.line}: import()"
        body.append(tok)
        i += 1
    for k, tok in enumerate(body):  # a name, not a property (x.name, x?.name)
        if tok.kind == "name" and not (k and body[k - 1].text in (".", "?.")):
            module.used.add(tok.text)
    for tok in toks:
        found = re.fullmatch(r"/\*\s*globals\s+(.*?)\s*\*/", tok.text, re.S) \
            if tok.kind == "comment" else None
        if found:
            module.globals += [g.strip() for g in found.group(1).split(",")]
    return module


def page_modules() -> dict[str, Module]:
    return {m.path: m for m in map(read_module, sorted(PAGE.rglob("*.js")))}


MODULES = page_modules()


def shell() -> list[str]:
    """The paths the service worker keeps (sw.js's SHELL)."""
    found = re.search(r"const SHELL = \[(.*?)\];", (STATIC / "sw.js").read_text(), re.S)
    assert found is not None
    return re.findall(r'"(/[^"]*)"', found.group(1))


def cycle(modules: dict[str, Module]) -> list[str] | None:
    """An import cycle (as the modules along it), or None."""
    state: dict[str, str] = {}
    trail: list[str] = []

    def visit(name: str) -> list[str] | None:
        state[name] = "open"
        trail.append(name)
        for target in modules[name].imports:
            if state.get(target) == "open":
                return [*trail[trail.index(target):], target]
            if target not in state and (found := visit(target)):
                return found
        state[name] = "done"
        trail.pop()
        return None

    for name in modules:
        if name not in state and (found := visit(name)):
            return found
    return None


# -- the tokenizer reads what the page's code holds -----------------------------------------------


def test_the_tokenizer_tells_names_from_strings_comments_and_regexes() -> None:
    source = ('const a = "b" + `c ${d(e)} f` / 2; // g\n/* h */ x = /i[/]j/g.test(k) ? l.m : n;\n'
              'return /o/.test(p);')
    names = [t.text for t in tokens(source) if t.kind == "name"]
    assert names == ["const", "a", "d", "e", "x", "test", "k", "l", "m", "n", "return", "test", "p"]
    kinds = [t.kind for t in tokens(source)]
    assert kinds.count("regex") == 2 and kinds.count("comment") == 2


def test_the_checks_find_what_they_look_for() -> None:
    a = Module("a.js", imports={"b.js": ["x"]}, used={"x"})
    b = Module("b.js", imports={"a.js": []}, exports=["x"])
    assert cycle({"a.js": a, "b.js": b}) == ["a.js", "b.js", "a.js"]
    b.imports = {}
    assert cycle({"a.js": a, "b.js": b}) is None
    assert resolve("editions/movie.js", "../store.js") == "store.js"
    assert resolve("main.js", "./editions/movie.js") == "editions/movie.js"


# -- imports and exports ---------------------------------------------------------------------------


def test_the_page_is_modules_from_main_js_and_app_js_is_gone() -> None:
    html = (STATIC / "index.html").read_text()
    assert '<script type="module" src="/static/page/main.js"></script>' in html
    assert "app.js" not in html and not (STATIC / "app.js").exists()
    assert ENTRY in MODULES and len(MODULES) > 10


@pytest.mark.parametrize("name", sorted(MODULES))
def test_each_module_imports_only_what_it_uses_and_what_is_exported(name: str) -> None:
    module = MODULES[name]
    for target, names in module.imports.items():
        assert target in MODULES, f"{name} imports {target}, which is not a module of the page"
        for imported in names:
            assert imported in MODULES[target].exports, f"{name}: {target} exports no {imported}"
            assert imported in module.used, f"{name} imports {imported} from {target}: unused"


def test_each_export_is_imported_by_another_module() -> None:
    imported = {(target, n) for m in MODULES.values() for target, names in m.imports.items()
                for n in names}
    unused = [f"{m.path}: {name}" for m in MODULES.values() for name in m.exports
              if (m.path, name) not in imported]
    assert not unused, unused
    assert MODULES[ENTRY].exports == []  # the entry: nothing imports it


def test_no_module_imports_itself_back() -> None:
    assert cycle(MODULES) is None


def test_every_module_is_reached_from_main_js() -> None:
    reached, todo = set(), [ENTRY]
    while todo:
        name = todo.pop()
        if name not in reached:
            reached.add(name)
            todo += MODULES[name].imports
    assert reached == set(MODULES), sorted(set(MODULES) - reached)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_each_module_names_the_shared_globals_it_uses(name: str) -> None:
    """The classic scripts' globals a module uses are in its ``/* globals */`` comment, and
    only those."""
    module = MODULES[name]
    assert module.used & SHARED == set(module.globals), module.globals
    assert module.globals == sorted(module.globals)


# -- offline, served, translated -------------------------------------------------------------------


def test_the_service_worker_keeps_every_module() -> None:
    kept = shell()
    modules = {f"/static/page/{name}" for name in MODULES}
    assert modules <= set(kept), sorted(modules - set(kept))
    assert {p for p in kept if p.startswith("/static/page/")} == modules  # none that is gone
    assert "/static/app.js" not in kept
    assert 'const VERSION = "qb-shell-v13";' in (STATIC / "sw.js").read_text()


async def test_the_server_serves_every_module_as_javascript(tmp_path: Path) -> None:
    async with serving(tmp_path) as (server, _), aiohttp.ClientSession() as session:
        async with session.get(server.url) as page:
            assert '<script type="module" src="/static/page/main.js">' in await page.text()
        for name in MODULES:
            async with session.get(f"{server.url}static/page/{name}") as reply:
                assert reply.status == 200, name
                assert reply.content_type in JS_TYPES, (name, reply.content_type)
                assert await reply.read() == (PAGE / name).read_bytes()


def test_the_catalog_extractor_reads_every_module() -> None:
    """``make catalogs`` finds the page's words in each module that has some."""
    found = {filename for filename, *_ in extract_from_dir(STATIC.parent.parent, METHODS,
                                                           keywords=KEYWORDS)}
    for name, module in MODULES.items():
        if module.used & {"t", "tn"}:
            assert f"web/static/page/{name}" in found, name
