"""The README's campaign (night one, night two, the bestiary) works as written: every
command of its ``console`` blocks runs in order on an empty saves directory and
succeeds, what the README shows it printing is what it prints (dice and clock times
aside; ``…`` marks trimmed output), and the sessions and the bestiary end as the
README says."""

from __future__ import annotations

import json
import re
import shlex
import tomllib
from collections.abc import Callable
from pathlib import Path

from helpers import gmdesk_cli

README = Path(__file__).resolve().parent.parent / "README.md"
HEADING = "## A campaign: night one, night two, the bestiary"

#: what the walkthrough may run: the command line's verbs (never the desk itself)
VERBS = {"new", "char", "bestiary", "roll", "odds", "log", "list", "export", "systems", "check"}


def section() -> str:
    text = README.read_text(encoding="utf-8")
    assert HEADING in text, f"README.md has no section {HEADING!r}"
    start = text.index(HEADING)
    end = text.find("\n## ", start + len(HEADING))
    return text[start : end if end != -1 else len(text)]


def fenced(text: str, lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", text, re.S | re.M)


def transcript(text: str) -> list[tuple[str, list[str]]]:
    """The ``$ `` commands of the section's console blocks (``\\`` continues a line),
    each with the output shown under it."""
    steps: list[tuple[str, list[str]]] = []
    for block in fenced(text, "console"):
        lines = block.splitlines()
        i = 0
        while i < len(lines):
            line = lines[i]
            i += 1
            if not line.startswith("$ "):
                assert steps, f"output before any command in the README's campaign: {line!r}"
                steps[-1][1].append(line)
                continue
            command = line[2:]
            while command.endswith("\\"):
                command = command[:-1] + " " + lines[i].strip()
                i += 1
            steps.append((command, []))
    return steps


def _norm(line: str) -> str:
    # dice, initiative and clock times differ from run to run; their places do not
    return re.sub(r"[-−+]?\d+", "0", " ".join(line.split()))


def shows(expected: list[str], printed: str, norm: Callable[[str], str] = _norm) -> None:
    """Each line the README shows (``…`` for what it leaves out) is printed, in order."""
    actual = [norm(x) for x in printed.splitlines()]
    at = 0
    for want in expected:
        if want.strip() in ("", "…"):
            continue
        pattern = re.compile(".*".join(re.escape(part) for part in norm(want).split("…")))
        for j in range(at, len(actual)):
            if pattern.fullmatch(actual[j]):
                at = j + 1
                break
        else:
            raise AssertionError(f"the README shows {want!r}; gmdesk printed:\n{printed}")


def sed(argv: list[str]) -> None:
    """The README's one edit of a file: ``sed -i.bak 's/PATTERN/REPLACEMENT/' FILE``."""
    assert len(argv) == 4 and argv[1] == "-i.bak", argv
    m = re.fullmatch(r"s/((?:[^/\\]|\\.)*)/((?:[^/\\]|\\.)*)/", argv[2])
    assert m, argv[2]
    path = Path(argv[3])
    text = path.read_text(encoding="utf-8")
    edited, n = re.subn(m[1], m[2], text, flags=re.M)
    assert n, f"the README's edit {argv[2]!r} changes nothing in {path}:\n{text}"
    path.with_name(path.name + ".bak").write_text(text, encoding="utf-8")
    path.write_text(edited, encoding="utf-8")


def test_the_readme_campaign_runs_as_written(saves, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = section()
    steps = transcript(text)
    assert steps, "the README's campaign shows no commands"
    toml_shown = fenced(text, "toml")
    exported: list[Path] = []
    for command, expected in steps:
        argv = shlex.split(command, comments=True)
        if argv[0] == "sed":
            sed(argv)
            continue
        assert argv[0] == "gmdesk", f"the README's campaign runs gmdesk and one sed, not: {command}"
        assert argv[1] in VERBS, f"not a command-line verb: {command}"
        rc, out, err = gmdesk_cli(capsys, saves, *argv[1:])
        assert rc == 0, f"{command}\n{err}"
        if argv[1] != "roll":  # a roll's dice are the README's example, not these
            shows(expected, out + err)
        if argv[1:3] == ["bestiary", "export"] and argv[3] != "-":
            exported.append(Path(argv[3]))
            # the file is as the README shows it
            for block in toml_shown:
                shows(block.splitlines(), exported[-1].read_text(encoding="utf-8"), norm=str.rstrip)

    def cli_json(*args: str) -> list:
        rc, out, err = gmdesk_cli(capsys, saves, *args, "--json")
        assert rc == 0, err
        return [json.loads(line) for line in out.splitlines() if line.strip()]

    night1 = {c["name"]: c for c in cli_json("char", "Night 1", "list")}
    night2 = {c["name"]: c for c in cli_json("char", "Night 2", "list")}
    pcs = [n for n, c in night1.items() if c["side"] == "PC"]
    assert pcs and "Gospog 1" in night1, night1

    # Night 2 carries the party (after a rest), not Night 1's foes
    assert [n for n, c in night2.items() if c["side"] == "PC"] == pcs
    for name in pcs:
        assert night2[name]["fields"] == night1[name]["fields"]
        assert night2[name]["possibilities"] == night1[name]["possibilities"]
        assert night2[name]["vitality_current"] == night2[name]["vitality_default"]
        assert night2[name]["wounds"] == []
    assert not any(n.startswith("Gospog") for n in night2)
    header = {s["name"]: s for s in cli_json("list")}
    assert header["Night 2"]["carried_from"]["name"] == "Night 1"
    assert header["Night 2"]["carried_from"]["rest"] is True

    # the bestiary holds the saved block, with the edit read back in
    saved = [(c, a) for c, a in steps if shlex.split(c, comments=True)[1:3] == ["bestiary", "save"]]
    assert saved, "the README's campaign saves a character in the bestiary"
    save_argv = shlex.split(saved[0][0], comments=True)
    source, block_name = night1[save_argv[4]], save_argv[save_argv.index("--as") + 1]
    (block,) = cli_json("bestiary", "show", block_name)
    assert block["fields"] == source["fields"]
    assert block["side"] == source["side"] and block["system"] == "torg-2d10"
    assert exported, "the README's campaign exports the bestiary"
    edited = tomllib.loads(exported[0].read_text(encoding="utf-8"))
    (in_file,) = [b for b in edited["stat_block"] if b["name"] == block_name]
    assert in_file["vitality"] != source["vitality_default"], "the README's edit changes the stat block"
    assert block["vitality"] == in_file["vitality"]
    # …and its copy at the next night is the edited stat block
    assert night2[block_name]["vitality_default"] == in_file["vitality"]

    # the import round-trips: exported again, it is the file that was imported
    again = tmp_path / "again.toml"
    rc, _, err = gmdesk_cli(capsys, saves, "bestiary", "export", str(again), "--tag", block["tags"][0])
    assert rc == 0, err
    assert tomllib.loads(again.read_text(encoding="utf-8")) == edited
