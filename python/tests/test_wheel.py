"""What the installed wheel carries: the licence, a stripped extension, the `tierlab` command."""

from __future__ import annotations

import importlib.metadata
import struct
import subprocess
import sys
from pathlib import Path

import tierlab._native


def _elf_sections(path: Path) -> list[str]:
    """The section names of a 64-bit little-endian ELF file."""
    data = path.read_bytes()
    assert data[:4] == b"\x7fELF" and data[4] == 2 and data[5] == 1, f"{path} is not a 64-bit little-endian ELF file"
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names_at = headers[shstrndx][4]  # sh_offset of the section-name table
    return [data[names_at + h[0] : data.index(b"\0", names_at + h[0])].decode() for h in headers]


def test_the_wheel_carries_the_apache_license():
    dist = importlib.metadata.distribution("tierlab")
    assert dist.metadata["License-Expression"] == "Apache-2.0"
    licenses = [f for f in dist.files or [] if f.name == "LICENSE"]
    assert licenses, "no LICENSE in the installed distribution"
    text = licenses[0].locate().read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text


def test_the_extension_is_stripped():
    path = Path(tierlab._native.__file__)
    if sys.platform != "linux":
        return
    sections = _elf_sections(path)
    assert ".text" in sections, sections
    assert ".symtab" not in sections and not any(s.startswith(".debug_") for s in sections), f"{path} is not stripped: {sections}"


def test_the_wheel_installs_the_tierlab_command():
    entry = [e for e in importlib.metadata.entry_points(group="console_scripts") if e.name == "tierlab"]
    assert [e.value for e in entry] == ["tierlab.__main__:main"]
    out = subprocess.run([sys.executable, "-m", "tierlab", "trace", "formats"], capture_output=True, text=True, check=True)
    assert "disksim" in out.stdout.lower()
