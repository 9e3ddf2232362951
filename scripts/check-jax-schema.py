#!/usr/bin/env python3
"""Check the project's proto schema against the descriptors inside jaxlib,
or against the .proto files of an XLA source tree (--xla-tree).

Where to run it: on a machine with jaxlib (and, for the GPU layer, the CUDA
plugin) installed, from a checkout of this repository; no GPU is needed.
Run it whenever the supported JAX version changes, next to
scripts/make-jax-fixtures.py.

jaxlib and the CUDA plugin are linked with full C++ protobuf, so every
generated .pb.cc leaves its serialized FileDescriptorProto in the shared
object. This script finds the shared objects under the running Python's
site-packages (jaxlib, jax_plugins, jax_cuda*), or takes those given with
--shared-object, pulls out the embedded descriptors, and compares every
(message, field number) -> (name, type, label, packing) and every enum
value with the project's proto2 subset under --schema (default format/proto
in the repository). Fields that the subset declares `bytes` where upstream
has a message (or `int32` for an enum) are deliberate stand-ins and are
listed as notes, not as differences. The report is printed and written to
<out>/schema-check.txt (--out, default test/Translate/jax-fixtures/<jax
version> in the repository). jax itself is never imported; google.protobuf,
where installed, cross-checks the descriptor reader.

With --xla-tree DIR (a checkout of openxla/xla, or of any XLA a JAX release
pins) it reads no shared object: every schema file is looked up under DIR
by its path, parsed with the files it imports from DIR, and compared the
same way. Run it whenever the schema changes (docs/formats.md,
"Versions"); it needs nothing but Python.

The schema is the union of the XLA versions it reads (docs/formats.md):
a field or kind that the other side reserves, because a newer XLA retired
it, is listed as kept for other versions, not as a difference.

Exit codes:
  0  no differences
  1  differences between jaxlib and the schema
  2  usage or environment problem (no jax, nothing found to scan, a schema
     file it cannot read)
"""
import argparse
import collections
import fnmatch
import importlib.metadata
import mmap
import os
import re
import site
import sys

from jaxlib_info import (EXIT_DIFFERENCES, EXIT_OK, REPO_ROOT,
                         EnvironmentProblem, default_out_dir,
                         installed_versions, report_problem)

DEFAULT_SCHEMA_DIR = os.path.join(REPO_ROOT, "format", "proto")
SCHEMA_REPORT = "schema-check.txt"


# ---------------------------------------------------------------------------
# Protobuf wire format: just enough to read FileDescriptorProtos out of a
# shared object without google.protobuf.

class WireError(ValueError):
    pass


VARINT, I64, LEN, I32 = 0, 1, 2, 5


def read_varint(buf, pos, end):
    result = shift = 0
    while True:
        if pos >= end:
            raise WireError("truncated varint")
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7
        if shift >= 70:
            raise WireError("varint longer than 10 bytes")


def read_field(buf, pos, end):
    """Reads the field at pos: (number, wire type, value, next position).

    The value is an int, or for LEN a (start, stop) pair into buf. Groups
    never occur in descriptors, so they count as invalid here.
    """
    key, pos = read_varint(buf, pos, end)
    number, wire_type = key >> 3, key & 7
    if number == 0:
        raise WireError("field number 0")
    if wire_type == VARINT:
        value, pos = read_varint(buf, pos, end)
        return number, wire_type, value, pos
    if wire_type in (I64, I32):
        size = 8 if wire_type == I64 else 4
        if pos + size > end:
            raise WireError("truncated fixed-width field")
        return number, wire_type, int.from_bytes(buf[pos:pos + size], "little"), \
            pos + size
    if wire_type == LEN:
        length, pos = read_varint(buf, pos, end)
        if pos + length > end:
            raise WireError("length runs past the end")
        return number, wire_type, (pos, pos + length), pos + length
    raise WireError("wire type %d" % wire_type)


def is_valid_message(buf, start, end):
    """True if buf[start:end] is a well-formed sequence of fields."""
    pos = start
    try:
        while pos < end:
            pos = read_field(buf, pos, end)[3]
    except WireError:
        return False
    return True


# Top-level FileDescriptorProto fields: number -> wire type. 13 (a string
# edition of protobuf 22/23) is left out: too easily matched by junk.
FILE_FIELDS = {1: LEN, 2: LEN, 3: LEN, 4: LEN, 5: LEN, 6: LEN, 7: LEN, 8: LEN,
               9: LEN, 10: VARINT, 11: VARINT, 12: LEN, 14: VARINT}
FILE_MESSAGE_FIELDS = {4, 5, 6, 7, 8, 9}
FILE_REPEATED_FIELDS = {3, 4, 5, 6, 7, 10, 11}
SYNTAXES = (b"proto2", b"proto3", b"editions")
MAX_DESCRIPTOR_BYTES = 8 << 20


def descriptor_extent(buf, start, limit):
    """Where the FileDescriptorProto starting at buf[start] ends.

    The blob's length is not stored next to it, so walk its top-level
    fields and stop at the first one that cannot belong to it. protoc
    writes fields in number order and each singular field once; what
    follows the blob in .rodata (another descriptor's name, a NUL, other
    data) breaks one of these rules almost at once.
    """
    pos, last, syntax = start, 0, None
    while pos < limit:
        try:
            number, wire_type, value, next_pos = read_field(buf, pos, limit)
        except WireError:
            break
        packed = number in (10, 11) and wire_type == LEN
        if FILE_FIELDS.get(number) != wire_type and not packed:
            break
        if number < last or (number == last
                             and number not in FILE_REPEATED_FIELDS):
            break
        if number in FILE_MESSAGE_FIELDS and not is_valid_message(buf, *value):
            break
        if number == 12:
            syntax = bytes(buf[value[0]:value[1]])
            if syntax not in SYNTAXES:
                break
        if number == 14 and (syntax != b"editions" or value < 900):
            break
        last, pos = number, next_pos
    return pos


# Decoding specs: field number -> (name, kind, repeated). A kind is "str",
# "int", "bool" or the spec of a nested message. Fields not listed are
# skipped (read_field still checks that they are well framed).
ENUM_VALUE = {1: ("name", "str", False), 2: ("number", "int", False)}
ENUM = {1: ("name", "str", False), 2: ("value", ENUM_VALUE, True)}
FEATURES = {3: ("repeated_field_encoding", "int", False)}
FIELD_OPTIONS = {2: ("packed", "bool", False), 21: ("features", FEATURES, False)}
FIELD = {1: ("name", "str", False), 3: ("number", "int", False),
         4: ("label", "int", False), 5: ("type", "int", False),
         6: ("type_name", "str", False), 8: ("options", FIELD_OPTIONS, False),
         9: ("oneof_index", "int", False),
         17: ("proto3_optional", "bool", False)}
MESSAGE_OPTIONS = {7: ("map_entry", "bool", False)}
RANGE = {1: ("start", "int", False), 2: ("end", "int", False)}
ONEOF = {1: ("name", "str", False)}
DESCRIPTOR = {1: ("name", "str", False), 2: ("field", FIELD, True),
              4: ("enum_type", ENUM, True),
              7: ("options", MESSAGE_OPTIONS, False),
              8: ("oneof_decl", ONEOF, True),
              9: ("reserved_range", RANGE, True),
              10: ("reserved_name", "str", True)}
DESCRIPTOR[3] = ("nested_type", DESCRIPTOR, True)
FILE = {1: ("name", "str", False), 2: ("package", "str", False),
        4: ("message_type", DESCRIPTOR, True), 5: ("enum_type", ENUM, True),
        12: ("syntax", "str", False), 14: ("edition", "int", False)}


def decode(buf, start, end, spec):
    """Decodes buf[start:end] as the message `spec` describes, into a dict."""
    message = {name: [] for name, _, repeated in spec.values() if repeated}
    pos = start
    while pos < end:
        number, wire_type, value, pos = read_field(buf, pos, end)
        if number not in spec:
            continue
        name, kind, repeated = spec[number]
        if isinstance(kind, dict):
            if wire_type != LEN:
                raise WireError("field %s is not length-delimited" % name)
            value = decode(buf, value[0], value[1], kind)
        elif kind == "str":
            if wire_type != LEN:
                raise WireError("field %s is not length-delimited" % name)
            value = bytes(buf[value[0]:value[1]]).decode("utf-8")
        elif wire_type != VARINT:
            raise WireError("field %s is not a varint" % name)
        elif kind == "bool":
            value = bool(value)
        elif value >= 1 << 63:  # negative int32/int64, sign-extended to 64 bits
            value -= 1 << 64
        if repeated:
            message[name].append(value)
        else:
            message[name] = value
    return message


# ---------------------------------------------------------------------------
# One model for both sides: upstream descriptors and the project's .proto
# files become {full name: Message} and {full name: Enum}.

Field = collections.namedtuple("Field",
                               "number name label type packed oneof")
# reserved_ranges: inclusive (low, high) pairs; "N to max" is too many
# numbers to keep one by one.
Message = collections.namedtuple("Message",
                                 "name file fields reserved_ranges "
                                 "reserved_names")
Enum = collections.namedtuple("Enum", "name file values reserved", defaults=((),))

SCALAR_TYPES = {1: "double", 2: "float", 3: "int64", 4: "uint64", 5: "int32",
                6: "fixed64", 7: "fixed32", 8: "bool", 9: "string",
                10: "group", 12: "bytes", 13: "uint32", 15: "sfixed32",
                16: "sfixed64", 17: "sint32", 18: "sint64"}
LABELS = {1: "optional", 2: "required", 3: "repeated"}
NOT_PACKABLE = {"string", "bytes", "group"}


def packable(field_type):
    kind, name = field_type
    return kind == "enum" or (kind == "scalar" and name not in NOT_PACKABLE)


class Schema:
    def __init__(self):
        self.messages = {}
        self.enums = {}

    def type_names(self):
        return set(self.messages) | set(self.enums)

    def file_of(self, name):
        return (self.messages.get(name) or self.enums[name]).file


def schema_from_descriptor(schema, fdp):
    """Adds a decoded FileDescriptorProto's messages and enums to schema."""
    package = fdp.get("package", "")
    syntax = fdp.get("syntax") or "proto2"
    for enum in fdp["enum_type"]:
        add_descriptor_enum(schema, fdp["name"], package, enum)
    for message in fdp["message_type"]:
        add_descriptor_message(schema, fdp["name"], package, syntax, message)


def add_descriptor_enum(schema, filename, scope, enum):
    full = qualify(scope, enum["name"])
    values = {}
    for value in enum["value"]:
        values.setdefault(value["number"], value["name"])  # first of aliases
    schema.enums[full] = Enum(full, filename, values)


def add_descriptor_message(schema, filename, scope, syntax, message):
    full = qualify(scope, message["name"])
    # proto3 `optional` lives in a synthetic one-member oneof: not a real one.
    oneofs = [o["name"] for o in message["oneof_decl"]]
    fields = {}
    for f in message["field"]:
        fields[f["number"]] = descriptor_field(f, syntax, oneofs)
    # Descriptor ranges exclude their end.
    reserved = [(r["start"], r["end"] - 1) for r in message["reserved_range"]]
    schema.messages[full] = Message(full, filename, fields, reserved,
                                    set(message["reserved_name"]))
    for nested in message["nested_type"]:
        add_descriptor_message(schema, filename, full, syntax, nested)
    for enum in message["enum_type"]:
        add_descriptor_enum(schema, filename, full, enum)


def descriptor_field(f, syntax, oneofs):
    type_number = f.get("type", 0)
    if type_number in (11, 14):
        field_type = ("message" if type_number == 11 else "enum",
                      f.get("type_name", "").lstrip("."))
    else:
        field_type = ("scalar", SCALAR_TYPES.get(type_number, "?%d" % type_number))
    label = LABELS.get(f.get("label", 1), "?")
    options = f.get("options", {})
    oneof = None
    if "oneof_index" in f and not f.get("proto3_optional"):
        oneof = oneofs[f["oneof_index"]]
    return Field(f["number"], f["name"], label, field_type,
                 is_packed(label, field_type, syntax, options), oneof)


def is_packed(label, field_type, syntax, options):
    """Whether repeated numbers are written packed, as protobuf decides it.

    Editions files are taken as packed unless the field itself says
    EXPANDED (file- and message-level features are not followed).
    """
    if label != "repeated" or not packable(field_type):
        return False
    if "packed" in options:
        return options["packed"]
    if syntax == "editions":
        return options.get("features", {}).get("repeated_field_encoding") != 2
    return syntax == "proto3"


def qualify(scope, name):
    return scope + "." + name if scope else name


# ---------------------------------------------------------------------------
# Finding descriptors in shared objects

# 0x0a (field 1, LEN), a one- or two-byte varint length, then a file name.
DESCRIPTOR_START = re.compile(rb"\x0a([\x01-\x7f]|[\x80-\xff][\x01-\x7f])"
                              rb"([A-Za-z0-9_][A-Za-z0-9_./-]*\.proto)")

PLUGIN_DIR_PATTERNS = ("jaxlib", "jax_plugins", "jax_cuda*")


def site_package_dirs():
    dirs = list(site.getsitepackages())
    dirs.append(site.getusersitepackages())
    dirs.extend(p for p in sys.path if p.endswith("-packages"))
    seen, result = set(), []
    for d in dirs:
        real = os.path.realpath(d)
        if os.path.isdir(real) and real not in seen:
            seen.add(real)
            result.append(real)
    return result


def find_shared_objects():
    found = []
    for packages in site_package_dirs():
        for top in sorted(os.listdir(packages)):
            if not any(fnmatch.fnmatch(top, p) for p in PLUGIN_DIR_PATTERNS):
                continue
            for root, _, files in os.walk(os.path.join(packages, top)):
                found.extend(os.path.join(root, name) for name in sorted(files)
                             if name.endswith(".so") or ".so." in name)
    unique, seen = [], set()
    for path in found:
        if os.path.realpath(path) not in seen:
            seen.add(os.path.realpath(path))
            unique.append(path)
    return unique


def descriptors_in(path):
    """Yields (file name, blob bytes) for every descriptor found in path."""
    with open(path, "rb") as f:
        if os.fstat(f.fileno()).st_size == 0:
            return
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            for match in DESCRIPTOR_START.finditer(data):
                length, _ = read_varint(match.group(1), 0, len(match.group(1)))
                name = match.group(2)
                if length != len(name):
                    continue
                start = match.start()
                end = descriptor_extent(
                    data, start, min(len(data), start + MAX_DESCRIPTOR_BYTES))
                yield name.decode(), bytes(data[start:end])


def decode_descriptor(name, blob):
    """The decoded FileDescriptorProto, or None if the blob is not one."""
    try:
        fdp = decode(blob, 0, len(blob), FILE)
    except (WireError, UnicodeDecodeError):
        return None
    if fdp.get("name") != name or not (fdp["message_type"] or fdp["enum_type"]):
        return None
    if not agrees_with_protobuf(name, blob, fdp):
        print("warning: google.protobuf reads the %d-byte blob of %s "
              "differently; skipped" % (len(blob), name), file=sys.stderr)
        return None
    return fdp


def agrees_with_protobuf(name, blob, fdp):
    """With google.protobuf at hand, parses the blob again with it: a check
    on the extent found and on this script's decoder."""
    try:
        from google.protobuf import descriptor_pb2
        from google.protobuf.message import DecodeError
    except ImportError:
        return True
    try:
        official = descriptor_pb2.FileDescriptorProto.FromString(blob)
    except DecodeError:
        return False
    return (official.name == name
            and len(official.message_type) == len(fdp["message_type"])
            and len(official.enum_type) == len(fdp["enum_type"]))


def is_plugin(path):
    return "jax_plugins" in path or "cuda" in os.path.basename(path)


def collect_descriptors(paths):
    """{file name: [(decoded descriptor, blob, [paths])]}, one per variant.

    Copies that decode the same are one variant, even if their bytes differ.
    The CUDA plugin's copy comes first: it is the one that compiles and
    serializes GPU executables.
    """
    variants = collections.defaultdict(dict)
    for path in sorted(paths, key=lambda p: not is_plugin(p)):
        for name, blob in descriptors_in(path):
            fdp = decode_descriptor(name, blob)
            if fdp is None:
                continue
            key = repr(fdp)
            if key in variants[name]:
                variants[name][key][2].append(path)
            else:
                variants[name][key] = (fdp, blob, [path])
    return {name: list(by_content.values())
            for name, by_content in variants.items() if by_content}


# ---------------------------------------------------------------------------
# The project's .proto files: a tokenizer and a small recursive parser for
# the proto2 subset they use (messages, nested messages and enums, oneof,
# map<K, V>, reserved, options).

TOKEN = re.compile(r"""
    (?P<skip>\s+|//[^\n]*|/\*.*?\*/)
  | (?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
  | (?P<word>\.?[A-Za-z_][\w.]*)
  | (?P<number>-?(?:0[xX][0-9A-Fa-f]+|\d+(?:\.\d*)?(?:[eE][-+]?\d+)?))
  | (?P<punct>[{}()\[\]<>=;,:])
    """, re.S | re.X)


class ProtoSyntaxError(Exception):
    pass


class Tokens:
    def __init__(self, text, filename):
        self.filename = filename
        self.items = []  # (token, line)
        pos, line = 0, 1
        while pos < len(text):
            match = TOKEN.match(text, pos)
            if not match:
                raise ProtoSyntaxError("%s:%d: cannot read %r"
                                       % (filename, line, text[pos:pos + 20]))
            if not match.group("skip"):
                self.items.append((match.group(), line))
            line += match.group().count("\n")
            pos = match.end()
        self.index = 0

    def peek(self, ahead=0):
        i = self.index + ahead
        return self.items[i][0] if i < len(self.items) else None

    def next(self):
        if self.index >= len(self.items):
            raise ProtoSyntaxError("%s: unexpected end of file" % self.filename)
        self.index += 1
        return self.items[self.index - 1][0]

    def expect(self, token):
        line = self.items[min(self.index, len(self.items) - 1)][1]
        got = self.next()
        if got != token:
            raise ProtoSyntaxError("%s:%d: expected %r, got %r"
                                   % (self.filename, line, token, got))

    def skip_statement(self):
        """Skips to the end of a statement: its ';' or its balanced {...}."""
        depth = 0
        while True:
            token = self.next()
            if token == "{":
                depth += 1
            elif token == "}":
                depth -= 1
                if depth == 0:
                    return
            elif token == ";" and depth == 0:
                return


def parse_int(token):
    if re.fullmatch(r"-?0\d+", token):
        return int(token, 8)
    return int(token, 0)


# What the parser records before type names are resolved: a field's type is
# the name as written.
ParsedField = collections.namedtuple("ParsedField",
                                     "number name label type_name packed oneof")
ParsedMessage = collections.namedtuple(
    "ParsedMessage", "name file fields reserved_ranges reserved_names")


class ProtoFile:
    """One parsed .proto file: package, syntax, messages and enums."""

    def __init__(self, text, filename):
        self.filename = filename
        self.package = ""
        self.syntax = "proto2"
        self.messages = []  # ParsedMessage, outer before nested
        self.enums = []     # Enum
        self.imports = []   # paths, as written
        tokens = Tokens(text, filename)
        while tokens.peek() is not None:
            self.parse_top_level(tokens)

    def parse_top_level(self, tokens):
        keyword = tokens.peek()
        if keyword == "syntax":
            tokens.next()
            tokens.expect("=")
            self.syntax = tokens.next().strip("\"'")
            tokens.expect(";")
        elif keyword == "package":
            tokens.next()
            self.package = tokens.next()
            tokens.expect(";")
        elif keyword == "message":
            self.parse_message(tokens, self.package)
        elif keyword == "enum":
            self.parse_enum(tokens, self.package)
        elif keyword == ";":
            tokens.next()
        elif keyword == "import":
            tokens.next()
            if tokens.peek() in ("public", "weak"):
                tokens.next()
            self.imports.append(tokens.next().strip("\"'"))
            tokens.expect(";")
        else:  # option, service, extend
            tokens.skip_statement()

    def parse_message(self, tokens, scope):
        tokens.expect("message")
        full = qualify(scope, tokens.next())
        message = ParsedMessage(full, self.filename, {}, [], set())
        self.messages.append(message)
        tokens.expect("{")
        while tokens.peek() != "}":
            self.parse_member(tokens, message, oneof=None)
        tokens.expect("}")

    def parse_member(self, tokens, message, oneof):
        keyword = tokens.peek()
        if keyword == "message":
            self.parse_message(tokens, message.name)
        elif keyword == "enum":
            self.parse_enum(tokens, message.name)
        elif keyword == "oneof":
            tokens.next()
            name = tokens.next()
            tokens.expect("{")
            while tokens.peek() != "}":
                self.parse_member(tokens, message, oneof=name)
            tokens.expect("}")
        elif keyword == "map":
            self.parse_map(tokens, message)
        elif keyword == "reserved":
            self.parse_reserved(tokens, message)
        elif keyword in ("option", "extensions", "extend"):
            tokens.skip_statement()
        elif keyword == ";":
            tokens.next()
        elif keyword == "group" or tokens.peek(1) == "group":
            raise ProtoSyntaxError("%s: groups are not supported" % self.filename)
        else:
            self.parse_field(tokens, message, oneof)

    def parse_field(self, tokens, message, oneof):
        label = "optional"  # oneof members and proto3 singular fields
        if tokens.peek() in ("optional", "required", "repeated"):
            label = tokens.next()
        type_name = tokens.next()
        name = tokens.next()
        tokens.expect("=")
        number = parse_int(tokens.next())
        options = self.parse_options(tokens)
        tokens.expect(";")
        packed = options.get("packed", "false" if self.syntax == "proto2"
                             else "true") == "true"
        message.fields[number] = ParsedField(number, name, label, type_name,
                                             packed, oneof)

    def parse_map(self, tokens, message):
        """map<K, V> name = N: on the wire a repeated NameEntry message with
        key = 1 and value = 2, which is how descriptors describe it too."""
        tokens.expect("map")
        tokens.expect("<")
        key_type = tokens.next()
        tokens.expect(",")
        value_type = tokens.next()
        tokens.expect(">")
        name = tokens.next()
        tokens.expect("=")
        number = parse_int(tokens.next())
        self.parse_options(tokens)
        tokens.expect(";")
        entry_name = "".join(part[:1].upper() + part[1:]
                             for part in name.split("_")) + "Entry"
        entry = ParsedMessage(qualify(message.name, entry_name), self.filename,
                              {}, [], set())
        entry.fields[1] = ParsedField(1, "key", "optional", key_type, False, None)
        entry.fields[2] = ParsedField(2, "value", "optional", value_type, False,
                                      None)
        self.messages.append(entry)
        message.fields[number] = ParsedField(number, name, "repeated",
                                             entry_name, False, None)

    def parse_reserved(self, tokens, message):
        tokens.expect("reserved")
        while True:
            token = tokens.next()
            if token[0] in "\"'":
                message.reserved_names.add(token[1:-1])
            elif token not in (",", ";"):
                low = parse_int(token)
                high = low
                if tokens.peek() == "to":
                    tokens.next()
                    bound = tokens.next()
                    high = 536870911 if bound == "max" else parse_int(bound)
                message.reserved_ranges.append((low, high))
            if token == ";":
                return

    def parse_options(self, tokens):
        """Reads an optional [key = value, ...]; returns {key: value}."""
        options = {}
        if tokens.peek() != "[":
            return options
        tokens.next()
        while True:
            key = tokens.next()
            tokens.expect("=")
            options[key] = tokens.next()
            token = tokens.next()
            if token == "]":
                return options
            if token != ",":
                raise ProtoSyntaxError("%s: bad field options near %r"
                                       % (self.filename, token))

    def parse_enum(self, tokens, scope):
        tokens.expect("enum")
        full = qualify(scope, tokens.next())
        values = {}
        tokens.expect("{")
        reserved = []
        while tokens.peek() != "}":
            if tokens.peek() == "reserved":
                holder = ParsedMessage(full, self.filename, {}, reserved, set())
                self.parse_reserved(tokens, holder)
                continue
            if tokens.peek() in ("option", ";"):
                tokens.skip_statement()
                continue
            name = tokens.next()
            tokens.expect("=")
            number = parse_int(tokens.next())
            self.parse_options(tokens)
            tokens.expect(";")
            values.setdefault(number, name)
        tokens.expect("}")
        self.enums.append(Enum(full, self.filename, values, reserved))


def parse_schema_dir(schema_dir):
    """Parses every .proto under schema_dir into a resolved Schema."""
    files = []
    for root, _, names in os.walk(schema_dir):
        for name in sorted(names):
            if name.endswith(".proto"):
                path = os.path.join(root, name)
                relative = os.path.relpath(path, schema_dir).replace(os.sep, "/")
                with open(path, encoding="utf-8") as f:
                    files.append(ProtoFile(f.read(), relative))
    if not files:
        raise EnvironmentProblem("no .proto files under %s" % schema_dir)
    return resolve_schema(files), files


SCALAR_NAMES = set(SCALAR_TYPES.values()) - {"group"}


def resolve_schema(files):
    schema = Schema()
    for proto in files:
        for enum in proto.enums:
            schema.enums[enum.name] = enum
    known = {m.name for proto in files for m in proto.messages}
    for proto in files:
        for parsed in proto.messages:
            fields = {n: resolve_field(f, parsed.name, known, schema.enums)
                      for n, f in parsed.fields.items()}
            schema.messages[parsed.name] = Message(
                parsed.name, parsed.file, fields, parsed.reserved_ranges,
                parsed.reserved_names)
    return schema


def resolve_field(parsed, scope, messages, enums):
    if parsed.type_name in SCALAR_NAMES:
        field_type = ("scalar", parsed.type_name)
    else:
        full = resolve_type(parsed.type_name, scope, messages, enums)
        if full in messages:
            field_type = ("message", full)
        elif full in enums:
            field_type = ("enum", full)
        else:
            field_type = ("unresolved", parsed.type_name)
    # A type from outside the files read may be an enum: packed as written;
    # compare_field weighs it only against a packable type of the schema's.
    packed = parsed.packed and parsed.label == "repeated" and \
        (field_type[0] == "unresolved" or packable(field_type))
    return Field(parsed.number, parsed.name, parsed.label, field_type, packed,
                 parsed.oneof)


def resolve_type(name, scope, messages, enums):
    """protobuf's scoping, simplified: the innermost enclosing scope in which
    the whole name exists wins (protoc stops at the first scope holding the
    name's first component; the difference needs shadowing to show)."""
    if name.startswith("."):
        return name[1:]
    parts = scope.split(".")
    for i in range(len(parts), -1, -1):
        candidate = qualify(".".join(parts[:i]), name)
        if candidate in messages or candidate in enums:
            return candidate
    return None


# ---------------------------------------------------------------------------
# Comparison

def describe_type(field_type):
    kind, name = field_type
    return name if kind == "scalar" else "%s %s" % (kind, name)


def describe_field(field):
    text = "%s %s %s" % (field.label, describe_type(field.type), field.name)
    if field.oneof:
        text += " (in oneof %s)" % field.oneof
    return text + (" [packed]" if field.packed else "")


def stand_in(upstream_type, schema_type):
    """Why a schema type that differs from upstream's is still wire-safe."""
    if schema_type == ("scalar", "bytes") and upstream_type[0] == "message":
        return "message kept opaque as bytes"
    if schema_type == ("scalar", "int32") and upstream_type[0] == "enum":
        return "enum read as int32"
    if schema_type == ("scalar", "bytes") and upstream_type == ("scalar", "string"):
        return "string read as bytes"
    return None


class Report:
    def __init__(self):
        self.differences = []
        self.stand_ins = []
        self.kept = []  # in the schema, reserved on the other side
        self.notes = []
        # Upstream types that fields missing from the schema use, and that
        # the schema does not define: their definitions go into the report,
        # since the running jaxlib may be the only place they can be read.
        self.needed_types = set()
        self.definitions = []


def is_reserved(message, number):
    return any(low <= number <= high for low, high in message.reserved_ranges)


def compare_message(report, name, upstream, ours):
    for number in sorted(upstream.fields):
        theirs = upstream.fields[number]
        mine = ours.fields.get(number)
        where = "%s #%d" % (name, number)
        if mine is None:
            reserved = " (reserved in the schema)" \
                if is_reserved(ours, number) else ""
            report.differences.append("missing in schema: %s %s%s" % (
                where, describe_field(theirs), reserved))
            if theirs.type[0] != "scalar":
                report.needed_types.add(theirs.type[1])
            continue
        compare_field(report, where, theirs, mine)
    for number in sorted(set(ours.fields) - set(upstream.fields)):
        line = "%s #%d %s" % (name, number, describe_field(ours.fields[number]))
        if is_reserved(upstream, number) or \
                ours.fields[number].name in upstream.reserved_names:
            report.kept.append(line + " (reserved upstream)")
        else:
            report.differences.append("only in schema: " + line)


def compare_field(report, where, theirs, mine):
    if theirs.type[0] == "unresolved" and mine.type[0] != "scalar" and \
            mine.type[1].split(".")[-1] == theirs.type[1].split(".")[-1]:
        # A type from a file outside the tree (google/protobuf's): the name
        # agrees, which is all that can be checked.
        report.notes.append("%s %s: upstream type %s is outside the tree"
                            % (where, theirs.name, theirs.type[1]))
        theirs = theirs._replace(type=mine.type)
    elif theirs.type[0] == "unresolved" and mine.type == ("scalar", "bytes"):
        report.stand_ins.append("%s %s: upstream %s (outside the tree), schema bytes "
                                "(kept opaque as bytes)" % (where, theirs.name, theirs.type[1]))
        theirs = theirs._replace(type=mine.type, packed=False)
    if theirs.name != mine.name:
        report.differences.append("name differs: %s upstream %s, schema %s"
                                  % (where, theirs.name, mine.name))
    if theirs.type != mine.type:
        why = stand_in(theirs.type, mine.type)
        line = "%s %s: upstream %s, schema %s" % (
            where, theirs.name, describe_type(theirs.type),
            describe_type(mine.type))
        if why:
            report.stand_ins.append("%s (%s)" % (line, why))
        else:
            report.differences.append("type differs: " + line)
    if theirs.label != mine.label:
        report.differences.append("label differs: %s %s: upstream %s, schema %s"
                                  % (where, theirs.name, theirs.label, mine.label))
    elif theirs.packed != mine.packed and packable(mine.type):
        report.differences.append(
            "packing differs: %s %s: upstream %s, schema %s (re-encoding "
            "would not reproduce XLA's bytes)" % (
                where, theirs.name, "packed" if theirs.packed else "unpacked",
                "packed" if mine.packed else "unpacked"))
    if theirs.oneof != mine.oneof:
        report.notes.append("oneof differs: %s %s: upstream %s, schema %s"
                            % (where, theirs.name, theirs.oneof, mine.oneof))


def compare_enum(report, name, upstream, ours):
    for number in sorted(set(upstream.values) | set(ours.values)):
        theirs, mine = upstream.values.get(number), ours.values.get(number)
        if theirs == mine:
            continue
        if mine is None:
            report.differences.append("enum value missing in schema: %s %s = %d"
                                      % (name, theirs, number))
        elif theirs is None and any(low <= number <= high for low, high in upstream.reserved):
            report.kept.append("%s %s = %d (reserved upstream)" % (name, mine, number))
        elif theirs is None:
            report.differences.append("enum value only in schema: %s %s = %d"
                                      % (name, mine, number))
        else:
            report.differences.append("enum value differs: %s %d: upstream %s, "
                                      "schema %s" % (name, number, theirs, mine))


def compare_definitions(report, upstream, ours):
    """Compares every message and enum that both sides define."""
    for name in sorted(set(upstream.messages) & set(ours.messages)):
        compare_message(report, name, upstream.messages[name],
                        ours.messages[name])
    for name in sorted(set(upstream.enums) & set(ours.enums)):
        compare_enum(report, name, upstream.enums[name], ours.enums[name])


def compare_schemas(found, ours, schema_files):
    """Compares the first copy of every descriptor file with the schema,
    then adds what other, differing copies say on top."""
    upstream = Schema()
    for name in sorted(found):
        schema_from_descriptor(upstream, found[name][0][0])
    report = Report()
    compare_definitions(report, upstream, ours)
    add_other_copies(report, found, ours)
    add_coverage_notes(report, upstream, ours, found, schema_files)
    report.definitions = upstream_definitions(report.needed_types, upstream,
                                              ours)
    return report


def upstream_definitions(names, upstream, ours):
    """The upstream definitions, as .proto text, of the given types and of
    every type they use that the schema lacks, so that a missing field can
    be added from the report alone."""
    lines, seen = [], set()
    pending = sorted(n for n in names if n not in ours.type_names())
    while pending:
        name = pending.pop(0)
        if name in seen:
            continue
        seen.add(name)
        if name in upstream.enums:
            enum = upstream.enums[name]
            lines.append("enum %s {  // %s" % (name, enum.file))
            lines += ["  %s = %d;" % (value, number)
                      for number, value in sorted(enum.values.items())]
        elif name in upstream.messages:
            message = upstream.messages[name]
            lines.append("message %s {  // %s" % (name, message.file))
            for number in sorted(message.fields):
                field = message.fields[number]
                lines.append("  %s = %d;" % (describe_field(field), number))
                used = field.type[1]
                if field.type[0] != "scalar" and used not in ours.type_names():
                    pending.append(used)
            lines += ["  reserved %d to %d;" % r
                      for r in message.reserved_ranges]
        else:
            lines.append("// %s: no upstream definition found" % name)
            continue
        lines.append("}")
    return lines


def add_other_copies(report, found, ours):
    """jaxlib and the plugin may carry different builds of a file, and each
    writes its own layer of the executable: compare every copy."""
    for name in sorted(found):
        first_sources = ", ".join(os.path.basename(p)
                                  for p in found[name][0][2])
        for fdp, _, sources in found[name][1:]:
            where = ", ".join(os.path.basename(p) for p in sources)
            report.notes.append("%s differs between shared objects: compared "
                                "the copy in %s, then the one in %s"
                                % (name, first_sources, where))
            copy = Schema()
            schema_from_descriptor(copy, fdp)
            extra = Report()
            compare_definitions(extra, copy, ours)
            report.needed_types |= extra.needed_types
            for kept, new in ((report.differences, extra.differences),
                              (report.stand_ins, extra.stand_ins),
                              (report.notes, extra.notes)):
                kept.extend("%s [only in the copy in %s]" % (line, where)
                            for line in new if line not in kept)


def add_coverage_notes(report, upstream, ours, found, schema_files):
    missing = sorted(schema_files - found.keys())
    if missing:
        report.notes.append("schema files with no embedded descriptor: "
                            + ", ".join(missing))
    not_found = sorted(ours.type_names() - upstream.type_names())
    if not_found:
        report.notes.append("in the schema, not in any embedded descriptor "
                            "(renamed or removed upstream?): "
                            + ", ".join(not_found))
    # Upstream types that the subset leaves out, only for files it covers.
    left_out = sorted(n for n in upstream.type_names() - ours.type_names()
                      if upstream.file_of(n) in schema_files)
    if left_out:
        report.notes.append("upstream types the schema leaves out (%d): %s"
                            % (len(left_out), ", ".join(left_out)))


def check_schema(args):
    schema_dir = args.schema
    if not os.path.isdir(schema_dir):
        raise EnvironmentProblem("schema directory %s not found" % schema_dir)
    out_dir = args.out or default_out_dir(jax_version_without_import())
    ours, files = parse_schema_dir(schema_dir)
    paths = args.shared_object or find_shared_objects()
    unreadable = [p for p in paths if not os.path.isfile(p)]
    if unreadable:
        raise EnvironmentProblem("not a file: " + ", ".join(unreadable))
    if not paths:
        raise EnvironmentProblem(
            "no jaxlib / jax_plugins / jax_cuda* shared objects under %s"
            % ", ".join(site_package_dirs()))
    found = collect_descriptors(paths)
    schema_files = {proto.filename for proto in files}
    if not found.keys() & schema_files:
        raise EnvironmentProblem("none of the schema's files has an embedded "
                                 "descriptor in %d shared objects" % len(paths))

    report = compare_schemas(found, ours, schema_files)
    text = format_report(schema_dir, paths, found, schema_files, report)
    print(text, end="")
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, SCHEMA_REPORT), "w") as f:
        f.write(text)
    print("written to %s" % os.path.join(out_dir, SCHEMA_REPORT))
    return EXIT_DIFFERENCES if report.differences else EXIT_OK


def parse_tree(tree, wanted):
    """The .proto files of `tree` at the paths in `wanted`, and every file
    they import that the tree has; returns (files, paths not in the tree)."""
    files, absent, seen = [], [], set()
    pending = sorted(wanted)
    while pending:
        relative = pending.pop(0)
        if relative in seen:
            continue
        seen.add(relative)
        path = os.path.join(tree, relative)
        if not os.path.isfile(path):
            if relative in wanted:
                absent.append(relative)
            continue
        with open(path, encoding="utf-8") as f:
            proto = ProtoFile(f.read(), relative)
        files.append(proto)
        pending += [i for i in proto.imports if i not in seen]
    return files, absent


def check_tree(args):
    """The schema against the .proto files of an XLA source tree."""
    if not os.path.isdir(args.schema):
        raise EnvironmentProblem("schema directory %s not found" % args.schema)
    if not os.path.isdir(args.xla_tree):
        raise EnvironmentProblem("XLA tree %s not found" % args.xla_tree)
    ours, files = parse_schema_dir(args.schema)
    schema_files = {proto.filename for proto in files}
    found, absent = parse_tree(args.xla_tree, schema_files)
    if not found:
        raise EnvironmentProblem("none of the schema's %d files is under %s"
                                 % (len(schema_files), args.xla_tree))
    upstream = resolve_schema(found)
    report = Report()
    compare_definitions(report, upstream, ours)
    if absent:
        report.notes.append("schema files not in the tree: " + ", ".join(absent))
    covered = {proto.filename for proto in found} & schema_files
    gone = sorted(n for n in ours.type_names() - upstream.type_names()
                  if ours.file_of(n) in covered)
    if gone:
        report.notes.append("in the schema, not in the tree (renamed, or kept "
                            "for other versions): " + ", ".join(gone))
    counted = set(upstream.messages) & set(ours.messages)
    fields = sum(len(upstream.messages[n].fields) for n in counted)
    values = sum(len(upstream.enums[n].values)
                 for n in set(upstream.enums) & set(ours.enums))
    lines = ["Schema check of %s against the XLA tree %s" % (args.schema, args.xla_tree),
             "Compared %d messages (%d upstream fields) and %d enums (%d values) "
             "in %d of the schema's %d files"
             % (len(counted), fields, len(set(upstream.enums) & set(ours.enums)),
                values, len(covered), len(schema_files))]
    text = "\n".join(lines + report_sections(report)) + "\n"
    print(text, end="")
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, SCHEMA_REPORT), "w") as f:
            f.write(text)
        print("written to %s" % os.path.join(args.out, SCHEMA_REPORT))
    return EXIT_DIFFERENCES if report.differences else EXIT_OK


def jax_version_without_import():
    try:
        return importlib.metadata.version("jax")
    except importlib.metadata.PackageNotFoundError:
        raise EnvironmentProblem("jax is not installed: give --out")


def format_report(schema_dir, paths, found, schema_files, report):
    lines = ["Schema check of %s against descriptors embedded in jaxlib"
             % schema_dir]
    lines += ["  %s %s" % item for item in sorted(installed_versions().items())]
    lines.append("Shared objects scanned (%d):" % len(paths))
    lines += ["  " + path for path in paths]
    covered = sorted(found.keys() & schema_files)
    lines.append("Schema files with an embedded descriptor: %d of %d; "
                 "descriptors found in all: %d"
                 % (len(covered), len(schema_files), len(found)))
    for name in covered:
        for _, blob, sources in found[name]:
            lines.append("  %s (%d bytes, %s)" % (
                name, len(blob),
                ", ".join(os.path.basename(s) for s in sources)))
    return "\n".join(lines + report_sections(report)) + "\n"


def report_sections(report):
    lines = []
    for title, items in (("Differences", report.differences),
                         ("Stand-ins (deliberate, wire-compatible)",
                          report.stand_ins),
                         ("Kept for other versions (reserved upstream)",
                          report.kept),
                         ("Notes", report.notes)):
        lines.append("")
        lines.append("%s: %d" % (title, len(items)))
        lines += ["  " + item for item in items]
    if report.definitions:
        lines.append("")
        lines.append("Upstream definitions of the types the missing fields use:")
        lines += ["  " + line for line in report.definitions]
    return lines


# ---------------------------------------------------------------------------

def parse_args(argv):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="exit codes: 0 no differences; 1 schema differences; 2 usage "
               "or environment problem. Where and when to run it: see the "
               "top of this script.")
    parser.add_argument("--schema", metavar="DIR", default=DEFAULT_SCHEMA_DIR,
                        help="the schema's .proto tree (default: format/proto "
                             "in the repository)")
    parser.add_argument("--out", metavar="DIR",
                        help="where %s goes (default: test/Translate/"
                             "jax-fixtures/<jax version> in the repository)"
                             % SCHEMA_REPORT)
    parser.add_argument("--xla-tree", metavar="DIR",
                        help="compare with the .proto files of this XLA "
                             "source tree instead of jaxlib's descriptors")
    parser.add_argument("--shared-object", metavar="PATH", action="append",
                        help="scan this file instead of searching "
                             "site-packages (repeatable)")
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    try:
        return check_tree(args) if args.xla_tree else check_schema(args)
    except (EnvironmentProblem, ProtoSyntaxError) as e:
        return report_problem(e)


if __name__ == "__main__":
    sys.exit(main())
