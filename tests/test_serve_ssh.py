"""``gmdesk serve SAVE --ssh-port P``: the player view in players' own terminals over
SSH (issue 21, part 3). The server runs as the real command on 127.0.0.1 with its
state directory (the host key) in the test's own folder; players are asyncssh's own
client on loopback."""

from __future__ import annotations

import asyncio
import os
import random
import re
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest

asyncssh = pytest.importorskip("asyncssh", reason="asyncssh is not installed: pip install -e '.[test]'")
pytest.importorskip("textual_serve", reason="textual-serve is not installed: pip install -e '.[test]'")

import aiohttp  # noqa: E402
from helpers import wait_until  # noqa: E402
from test_serve import ANSI, Served, alive, open_viewer  # noqa: E402

from gmdesk.core.session import Session, SessionStore  # noqa: E402
from gmdesk.tui.serve_ssh import Attempts  # noqa: E402

SAVE = "Ambush at the ford"


def make_ambush(saves: Path) -> Path:
    """Kara and Bruno in the fight, and Gospog the hidden foe, who has rolled at Kara."""
    path = SessionStore(saves).create(SAVE, "4d2")
    with Session.open(path) as s:
        add = lambda name, **kw: s.apply({"type": "character.add", "character": {"name": name, **kw}}).data["id"]  # noqa: E731
        kara = add("Kara", side="PC", vitality=5)
        add("Bruno", side="NPC", vitality=7)
        gospog = add("Gospog", side="NPC", hidden=True)
        s.apply({"type": "initiative.set", "entries": [{"id": kara, "value": 12}, {"id": gospog, "value": 9}]})
        s.apply({"type": "round.new"})
        s.roll("4d2", {}, actor=gospog, target=kara, combat=True, rng=random.Random(3))
        s.roll("4d2", {}, actor=kara, rng=random.Random(4))
    return path


class Player:
    """One SSH client with a terminal: what its screen was sent."""

    def __init__(self, conn, process):
        self.conn = conn
        self.process = process
        self.raw = b""

    @property
    def text(self) -> str:
        return ANSI.sub("", self.raw.decode("utf-8", "replace"))

    async def read_until(self, predicate, timeout: float = 20.0) -> None:
        loop = asyncio.get_running_loop()
        until = loop.time() + timeout
        while not predicate(self.text):
            left = until - loop.time()
            if left <= 0:
                raise AssertionError(f"not seen within {timeout}s; the terminal shows:\n{self.text[-2000:]}")
            try:
                data = await asyncio.wait_for(self.process.stdout.read(65536), left)
            except TimeoutError:
                continue
            if not data:
                if predicate(self.text):
                    return
                raise AssertionError(f"the session ended; the terminal shows:\n{self.text[-2000:]}")
            self.raw += data


async def connect(port: int, size=(100, 30), username: str = "player", **auth) -> Player:
    auth.setdefault("client_keys", None)
    conn = await asyncssh.connect(
        "127.0.0.1", port, username=username, known_hosts=None, agent_path=None, **auth, login_timeout=20
    )
    process = await conn.create_process(term_type="xterm-256color", term_size=size, encoding=None)
    return Player(conn, process)


@pytest.fixture(scope="module")
def state(tmp_path_factory):
    """gmdesk's state directory for these tests ($XDG_STATE_HOME), never the user's."""
    folder = tmp_path_factory.mktemp("state")
    before = os.environ.get("XDG_STATE_HOME")
    os.environ["XDG_STATE_HOME"] = str(folder)
    yield folder
    if before is None:
        os.environ.pop("XDG_STATE_HOME", None)
    else:
        os.environ["XDG_STATE_HOME"] = before


@pytest.fixture(scope="module")
def table(tmp_path_factory, state):
    """One ``gmdesk serve --ssh-port 0 --max-viewers 3 --authorized-keys FILE`` for the module."""
    saves = tmp_path_factory.mktemp("saves")
    make_ambush(saves)
    listed = asyncssh.generate_private_key("ssh-ed25519")
    keys = saves.parent / "authorized_keys"
    keys.write_bytes(listed.export_public_key())
    served = Served(saves, SAVE, "--ssh-port", "0", "--max-viewers", "3", "--authorized-keys", str(keys))
    wait_until(lambda: re.search(r"host key SHA256:", served.output), timeout=30)
    served.ssh_port = int(re.search(r"ssh -p (\d+) player@127\.0\.0\.1", served.output).group(1))
    served.listed_key = listed
    served.saves = saves
    yield served
    pids = served.viewers()
    served.stop()
    for pid in pids:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)


async def test_the_token_opens_the_player_view_which_follows_resizes_and_hides_the_foe(table, state):
    player = await connect(table.ssh_port, password=table.token)
    try:
        await player.read_until(lambda t: "following" in t and "Kara" in t)
        assert "PLAYER VIEW" in player.text and SAVE in player.text
        assert "Last rolls" not in player.text  # 100 columns: the wide layout
        player.raw = b""
        player.process.change_terminal_size(50, 30)  # the window narrows: the phone layout
        await player.read_until(lambda t: "Last rolls" in t and "Kara" in t)
        player.raw = b""
        player.process.change_terminal_size(120, 30)
        await player.read_until(lambda t: "Roll log" in t or "following" in t)
        # the server's host key is the one it printed, made once, 0600, in gmdesk's state directory
        key_file = state / "gmdesk" / "ssh_host_ed25519_key"
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
        printed = re.search(r"host key (SHA256:\S+)", table.output).group(1)
        assert player.conn.get_server_host_key().get_fingerprint("sha256") == printed
        assert asyncssh.read_private_key(key_file).get_fingerprint("sha256") == printed
        assert table.token in table.output and f"ssh -p {table.ssh_port} player@127.0.0.1" in table.output
        # nothing but the view: no exec, no forwarding
        with pytest.raises(asyncssh.ChannelOpenError):
            await player.conn.create_connection(asyncssh.SSHTCPSession, "127.0.0.1", table.port)
        with pytest.raises(asyncssh.ChannelOpenError):
            await player.conn.create_process("cat /etc/passwd")
        with pytest.raises(asyncssh.ChannelOpenError):
            await player.conn.create_process(subsystem="sftp")
        bare = await player.conn.create_process(encoding=None)  # ssh -T: no terminal to draw on
        finished = await asyncio.wait_for(bare.wait(), 10)
        assert finished.exit_status == 1 and b"needs a terminal (ssh -t)" in finished.stdout
        # q quits: the session ends and so does its process
        pids = table.viewers()
        player.process.stdin.write(b"q")
        await asyncio.wait_for(player.process.wait(), 15)
        wait_until(lambda: not any(alive(pid) for pid in pids), timeout=10)
    finally:
        player.conn.close()
    assert "Gospog" not in player.text  # the hidden foe, its initiative and its roll: never on a player's screen
    assert re.search(r"SSH viewer joined from 127\.0\.0\.1 as 'player' \(1 of 3, 100×30\)", table.output)
    wait_until(lambda: re.search(r"SSH viewer from 127\.0\.0\.1 left \(0 of 3\)", table.output), timeout=10)


async def test_a_listed_key_logs_in_and_seats_are_shared_with_browsers(table):
    async with aiohttp.ClientSession() as http:
        browser = await open_viewer(http, table.ws_url)
        await browser.read_until(lambda t: "following" in t)
        keyed = await connect(table.ssh_port, client_keys=[table.listed_key], size=(80, 24), username="kara")
        await keyed.read_until(lambda t: "following" in t)
        stranger = asyncssh.generate_private_key("ssh-ed25519")
        with pytest.raises(asyncssh.PermissionDenied):
            await connect(table.ssh_port, client_keys=[stranger])
        third = await connect(table.ssh_port, password=table.token)  # the third of --max-viewers 3
        await third.read_until(lambda t: "following" in t)
        fourth = await connect(table.ssh_port, password=table.token)
        await fourth.read_until(lambda t: "The table is full" in t and "(3)" in t)
        await asyncio.wait_for(fourth.process.wait(), 10)
        async with http.get(table.url) as r:
            assert r.status == 503  # and the browsers hear the same
        for player in (keyed, third, fourth):
            player.conn.close()
        await browser.ws.close()
        wait_until(lambda: not table.viewers(), timeout=15)
    assert "(3 of 3" in table.output and "SSH viewer joined from 127.0.0.1 as 'kara'" in table.output


async def test_five_wrong_passwords_in_a_minute_make_an_address_wait(table):
    for _ in range(5):
        with pytest.raises(asyncssh.PermissionDenied):
            await connect(table.ssh_port, password="not the token")
    with pytest.raises(asyncssh.PermissionDenied):  # now even the token waits
        await connect(table.ssh_port, password=table.token)
    assert table.output.count("refused: wrong password") == 4
    assert "5 wrong passwords within a minute; it waits" in table.output


def test_an_address_waits_only_a_minute():
    now = [1000.0]
    attempts = Attempts(clock=lambda: now[0])
    for _ in range(4):
        attempts.failed("10.0.0.7")
    assert not attempts.waiting("10.0.0.7")
    attempts.failed("10.0.0.7")
    assert attempts.waiting("10.0.0.7") and not attempts.waiting("10.0.0.8")
    now[0] += 59.9
    assert attempts.waiting("10.0.0.7")
    now[0] += 0.2
    assert not attempts.waiting("10.0.0.7")


async def test_stopping_serve_closes_every_ssh_session(tmp_path, state, table):
    make_ambush(tmp_path)
    served = Served(tmp_path, SAVE, "--ssh-port", "0")
    try:
        wait_until(lambda: "host key" in served.output, timeout=30)
        # another night, another serve: the same host key, so players' known_hosts stay valid
        fingerprint = re.search(r"host key (SHA256:\S+)", served.output).group(1)
        assert fingerprint == re.search(r"host key (SHA256:\S+)", table.output).group(1)
        port = int(re.search(r"ssh -p (\d+)", served.output).group(1))
        players = [await connect(port, password=served.token) for _ in range(2)]
        for player in players:
            await player.read_until(lambda t: "following" in t)
        pids = served.viewers()
        assert len(pids) == 2
        served.proc.send_signal(signal.SIGTERM)
        for player in players:
            await asyncio.wait_for(player.process.wait_closed(), 10)
        assert served.proc.wait(10) == 0
        assert not any(alive(pid) for pid in pids)
    finally:
        served.stop()


def test_ssh_is_optional_and_its_options_are_checked(tmp_path, state, monkeypatch, capsys):
    from gmdesk.__main__ import main
    from gmdesk.tui.serve import ServeError
    from gmdesk.tui.serve_ssh import host_key

    make_ambush(tmp_path)
    saves = ["--saves", str(tmp_path)]
    with monkeypatch.context() as hidden:  # asyncssh not installed
        hidden.setitem(sys.modules, "asyncssh", None)
        hidden.delitem(sys.modules, "gmdesk.tui.serve_ssh")
        assert main([*saves, "serve", SAVE, "--port", "0", "--ssh-port", "0"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == "gmdesk serve: --ssh-port needs asyncssh: pip install 'gmdesk[ssh]'\n"
    for args, words in [
        (["--ssh-port", "70000"], "--ssh-port"),
        (["--authorized-keys", str(tmp_path / "keys")], "--authorized-keys: only with --ssh-port"),
        (["--ssh-port", "0", "--authorized-keys", str(tmp_path / "none")], "--authorized-keys: no file"),
    ]:
        assert main([*saves, "serve", SAVE, *args]) == 2
        out, err = capsys.readouterr()
        assert out == "" and len(err.strip().splitlines()) == 1 and words in err, args
    # without --ssh-port, asyncssh is never imported
    probe = (
        "import sys\n"
        "from gmdesk.tui.serve import PlayerServer\n"
        f"PlayerServer({str(tmp_path / (SAVE + '.gmdesk'))!r}, port=0)\n"
        "print('asyncssh' in sys.modules)\n"
    )
    assert subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60).stdout == "False\n"
    # a host key others can read is reported, never replaced
    key_file = tmp_path / "state" / "ssh_host_ed25519_key"
    host_key(key_file)
    before = key_file.read_bytes()
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600 and stat.S_IMODE(key_file.parent.stat().st_mode) == 0o700
    key_file.chmod(0o644)
    with pytest.raises(ServeError, match=r"can be read by others \(mode 0644\); chmod 600 it"):
        host_key(key_file)
    key_file.write_bytes(b"not a key")
    key_file.chmod(0o600)
    with pytest.raises(ServeError, match="cannot read the SSH host key"):
        host_key(key_file)
    assert key_file.read_bytes() == b"not a key"  # never replaced
    assert before != b"not a key"
