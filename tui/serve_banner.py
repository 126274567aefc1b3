"""What ``gmdesk serve`` announces: the access token, the URLs of the player view
(this machine's address on the table's network for ``--host 0.0.0.0``), the same
URLs' origins (the only ones the websocket takes), the SSH line and the QR code."""

from __future__ import annotations

import contextlib
import ipaddress
import secrets
import socket

import yarl


def new_token() -> str:
    return secrets.token_urlsafe(16)


def is_loopback(host: str) -> bool:
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def is_wildcard(host: str) -> bool:
    return host.strip("[]") in ("0.0.0.0", "::", "")


def lan_address() -> str | None:
    """This machine's address on its default route (how a phone on the table's network
    reaches it), or None. A UDP ``connect`` sends no packet; it only picks the route."""
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect(("192.0.2.1", 9))  # TEST-NET-1: never routed anywhere for real
        address = str(s.getsockname()[0])
        if address and not address.startswith("0."):
            return address
    with contextlib.suppress(OSError):
        address = socket.gethostbyname(socket.gethostname())
        if address and not is_loopback(address):
            return address
    return None


def url_for(host: str, port: int, token: str) -> str:
    host = host.strip("[]")
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}/{token}/"


def viewer_urls(host: str, port: int, token: str) -> tuple[str, str | None]:
    """(the URL to print, the URL for phones or None on loopback)."""
    if is_loopback(host):
        return url_for(host, port, token), None
    if is_wildcard(host):
        lan = lan_address()
        local = url_for("127.0.0.1" if ":" not in host else "::1", port, token)
        return local, (url_for(lan, port, token) if lan else None)
    url = url_for(host, port, token)
    return url, url


def origin_of(url: str) -> tuple[str, str, int | None]:
    """(scheme, host, port) of a URL or an ``Origin`` header, the default port filled in."""
    u = yarl.URL(url)
    return (u.scheme.lower(), (u.host or "").lower().strip("[]"), u.port)


def ssh_host(host: str) -> str:
    """The address players type after ``player@`` (the one the browser link names)."""
    local, table = viewer_urls(host, 1, "t")
    return origin_of(table or local)[1]


def qr_text(url: str) -> str:
    """The URL as a QR code in half-block characters (two modules a line)."""
    import io

    import segno

    out = io.StringIO()
    segno.make(url, error="m").terminal(out=out, compact=True, border=2)
    return out.getvalue()


def banner(
    save_name: str,
    host: str,
    port: int,
    token: str,
    max_viewers: int,
    ssh: tuple[int, str, bool] | None = None,
) -> str:
    """What ``gmdesk serve`` prints at start. ``ssh``: (its port, the host key's
    fingerprint, whether public keys are accepted too)."""
    local, table = viewer_urls(host, port, token)
    where = "in a browser and over SSH" if ssh is not None else "in a browser"
    lines = [f"gmdesk serve · {save_name} · the read-only player view {where}", ""]
    if table is None and not is_loopback(host):
        lines += [
            f"  Open:  {local}",
            "  (this machine's address on the table's network was not found; use it in place of 127.0.0.1)",
        ]
    elif table is None:
        lines += [f"  Open:  {local}", "  (this machine only; --host 0.0.0.0 serves the table's network)"]
    elif table == local:
        lines += [f"  Open:  {table}"]
    else:
        lines += [f"  At the table:     {table}", f"  On this machine:  {local}"]
    if ssh is not None:
        ssh_port, fingerprint, keys = ssh
        lines += [
            "",
            f"  Over SSH:  ssh -p {ssh_port} player@{ssh_host(host)}",
            f"             password {token}" + ("  (or a key in --authorized-keys)" if keys else ""),
            f"             host key {fingerprint}",
        ]
    if table is not None:
        lines += ["", qr_text(table).rstrip("\n")]
    lines += [
        "",
        f"  Up to {max_viewers} viewers, each one read-only. The link is the key: share",
        "  it only with the table, on a network you trust (plain HTTP, not for the",
        "  internet). Ctrl+C stops serving.",
        "",
    ]
    return "\n".join(lines)
