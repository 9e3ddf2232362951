"""A PEP 517 build backend for the thunky package, in the package's own
tree, with no requirements: pip builds the wheel offline with any Python
3.9+, whether or not it has setuptools or wheel (a Python that is not
Debian's often has neither), and with or without build isolation.

The package is pure Python (ctypes over thunky's C libraries), so its
wheel is ``py3-none-any``: ``thunky/*.py`` and the dist-info that PEP 427
and the core metadata spec ask for. The metadata comes from the
``[project]`` table of ``pyproject.toml``, the one place it is written.

Installed by ``cmake --install``, the package source lies in
``<prefix>/share/thunky/python`` beside ``libdir.txt``, the path from
there to the prefix's libraries; the wheel built from there records that
folder (``thunky/_installed.py``), so that the package finds the libraries
of the prefix it came from with no variable set.
"""

import base64
import hashlib
import os
import re
import zipfile
from pathlib import Path

SOURCE = Path(__file__).resolve().parent.parent  # where pyproject.toml is


def _project():
    """The [project] table's strings and string lists, read with the one
    TOML form pyproject.toml uses for them (tomllib is 3.11+)."""
    text = (SOURCE / "pyproject.toml").read_text(encoding="utf-8")
    table, result = None, {}
    for line in text.splitlines():
        line = line.split(" #")[0].strip()
        header = re.fullmatch(r"\[([^\]]+)\]", line)
        if header:
            table = header.group(1)
            continue
        m = re.fullmatch(r'([\w-]+)\s*=\s*(.+)', line)
        if not m:
            continue
        key, value = m.groups()
        if value.startswith('"'):
            value = value.strip('"')
        elif value.startswith("["):
            value = re.findall(r'"([^"]*)"', value)
        result[f"{table}.{key}"] = value
    return result


def _metadata():
    p = _project()
    name, version = p["project.name"], p["project.version"]
    lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}",
             f"Summary: {p['project.description']}",
             f"Requires-Python: {p['project.requires-python']}"]
    for key, value in p.items():
        if key.startswith("project.optional-dependencies."):
            extra = key.rsplit(".", 1)[1]
            lines.append(f"Provides-Extra: {extra}")
            lines += [f'Requires-Dist: {d}; extra == "{extra}"' for d in value]
    readme = SOURCE / p.get("project.readme", "README.md")
    lines.append("Description-Content-Type: text/markdown")
    body = readme.read_text(encoding="utf-8") if readme.exists() else ""
    return name, version, "\n".join(lines) + "\n\n" + body


def _files():
    """(name in the wheel, bytes) of the package."""
    for path in sorted((SOURCE / "thunky").glob("*.py")):
        if path.name != "_installed.py":
            yield f"thunky/{path.name}", path.read_bytes()
    libdir = SOURCE / "libdir.txt"
    if libdir.exists():
        where = (SOURCE / libdir.read_text(encoding="utf-8").strip()).resolve()
        yield ("thunky/_installed.py",
               (f'"""Written when the wheel was built from an installed prefix."""\n'
                f"LIBDIR = {str(where)!r}\n").encode())


def _dist_info(name, version):
    return f"{name}-{version}.dist-info"


def _wheel_entries(name, version, metadata):
    info = _dist_info(name, version)
    wheel = ("Wheel-Version: 1.0\nGenerator: thunky_build\nRoot-Is-Purelib: true\n"
             "Tag: py3-none-any\n")
    yield from _files()
    yield f"{info}/METADATA", metadata.encode()
    yield f"{info}/WHEEL", wheel.encode()


def _record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


# --- PEP 517 ----------------------------------------------------------------------

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    name, version, metadata = _metadata()
    info = Path(metadata_directory) / _dist_info(name, version)
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(metadata, encoding="utf-8")
    return info.name


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    name, version, metadata = _metadata()
    filename = f"{name}-{version}-py3-none-any.whl"
    record = f"{_dist_info(name, version)}/RECORD"
    lines = []
    with zipfile.ZipFile(Path(wheel_directory) / filename, "w", zipfile.ZIP_DEFLATED) as z:
        for path, data in _wheel_entries(name, version, metadata):
            z.writestr(path, data)
            lines.append(_record_line(path, data))
        lines.append(f"{record},,")
        z.writestr(record, "\n".join(lines) + "\n")
    return filename


def build_sdist(sdist_directory, config_settings=None):
    import tarfile
    name, version, _ = _metadata()
    base = f"{name}-{version}"
    filename = f"{base}.tar.gz"
    with tarfile.open(Path(sdist_directory) / filename, "w:gz") as t:
        for path in ["pyproject.toml", "README.md", "build_backend/thunky_build.py"] + \
                [f"thunky/{p.name}" for p in sorted((SOURCE / "thunky").glob("*.py"))]:
            if (SOURCE / path).exists():
                t.add(SOURCE / path, arcname=f"{base}/{path}")
    return filename
