"""Model of Spool's JSON message definitions: version ranges, fields,
structs and messages, with validation. Used by generate.py."""

import json
import os
import re

PRIMS = {
    "int8": ("int8_t", 1, "i8"),
    "int16": ("int16_t", 2, "i16"),
    "int32": ("int32_t", 4, "i32"),
    "int64": ("int64_t", 8, "i64"),
    "uint16": ("uint16_t", 2, "u16"),
    "float64": ("double", 8, "f64"),
    "bool": ("bool", 1, None),
    "uuid": ("Uuid", 16, None),
}
CPP_KEYWORDS = {"default", "operator", "class", "struct", "new", "delete", "template",
                "namespace", "union", "register", "public", "private", "protected"}
INF = 1 << 15
# Non-struct element types besides PRIMS. "errorCode" is an int16 on the wire
# typed protocol::ErrorCode in C++; "records" is a record-batch set kept as
# protocol::Records (a view into the frame when decoded, file regions or bytes
# when encoded).
LEAF = ("string", "bytes", "records", "errorCode")


class GenError(Exception):
    pass


class Versions:
    """An inclusive version range; hi == INF means open-ended, lo > hi empty."""

    def __init__(self, text):
        text = (text or "none").strip()
        if text == "none":
            self.lo, self.hi = 1, 0
        elif text.endswith("+"):
            self.lo, self.hi = int(text[:-1]), INF
        elif "-" in text:
            a, b = text.split("-", 1)
            self.lo, self.hi = int(a), int(b)
        else:
            self.lo = self.hi = int(text)

    def empty(self):
        return self.lo > self.hi

    def intersect(self, other):
        v = Versions("none")
        v.lo, v.hi = max(self.lo, other.lo), min(self.hi, other.hi)
        return v

    def contains(self, version):
        return self.lo <= version <= self.hi


def snake(name):
    s = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s)
    s = s.lower()
    if s in CPP_KEYWORDS:
        raise GenError(f"field name {name} is a C++ keyword")
    return s


class Field:
    def __init__(self, d, msg, where, ctx):
        self.name = d["name"]
        self.where = f"{where}.{self.name}"
        self.cpp = snake(self.name)
        self.type = d["type"]
        self.versions = Versions(d.get("versions"))
        self.nullable = Versions(d.get("nullableVersions"))
        self.default = d.get("default")
        self.tag = d.get("tag")
        self.tagged = Versions(d.get("taggedVersions", d.get("versions"))) if self.tag is not None \
            else Versions("none")
        if self.tag is not None and not isinstance(self.tag, int):
            raise GenError(f"{self.where}: tag must be an integer")
        self.is_array = self.type.startswith("[]")
        self.elem = self.type[2:] if self.is_array else self.type
        self.struct = None
        self.common = False  # the struct is one of the message's commonStructs
        if "fields" in d:
            if self.elem in PRIMS or self.elem in LEAF:
                raise GenError(f"{self.where}: primitive type with nested fields")
            if self.elem in msg.common:
                raise GenError(f"{self.where}: {self.elem} is a common struct; give no fields")
            self.struct = Struct(self.elem, d["fields"], msg, self.where,
                                 ctx.intersect(self.versions))
        elif self.elem in msg.common:
            self.struct = msg.common[self.elem]
            self.common = True
        elif self.elem not in PRIMS and self.elem not in LEAF:
            raise GenError(f"{self.where}: unknown type {self.type} (struct without fields?)")
        if self.elem == "records" and self.is_array:
            raise GenError(f"{self.where}: arrays of records are not supported")
        if self.tag is not None and self.contains_records():
            # A tagged value is encoded into its own buffer first, where file
            # regions could not be spliced; Kafka never tags records.
            raise GenError(f"{self.where}: records cannot be (inside) a tagged field")
        if not self.nullable.empty() and not (self.is_array or self.struct or
                                              self.elem in ("string", "bytes", "records")):
            raise GenError(f"{self.where}: only strings, bytes, records, arrays and structs "
                           "are nullable")
        if self.is_nullable_struct():
            if self.tag is not None:
                # Kafka tags no nullable struct; the marker byte inside a tagged
                # value would need its own size rules.
                raise GenError(f"{self.where}: a nullable struct cannot be tagged")
            if self.nullable.intersect(self.versions).empty():
                raise GenError(f"{self.where}: nullableVersions outside the field's versions")
        self.default_literal()  # validates the default now, naming the field

    def contains_records(self):
        if self.elem == "records":
            return True
        return bool(self.struct) and any(f.contains_records() for f in self.struct.fields)

    def is_nullable_type(self):
        # records are always optional: a fetch answer may carry none at all.
        return self.elem == "records" or not self.nullable.empty()

    def is_nullable_struct(self):
        """A single (not array) struct with nullableVersions: std::optional<S>,
        on the wire an int8 marker (-1 null, 1 present) before the struct in
        the nullable versions, the bare struct in the others."""
        return bool(self.struct) and not self.is_array and not self.nullable.empty()

    def elem_cpp(self):
        if self.struct:
            return self.struct.name
        if self.elem in PRIMS:
            return PRIMS[self.elem][0]
        if self.elem == "string":
            return "std::string"
        if self.elem == "errorCode":
            return "ErrorCode"
        if self.elem == "records":
            return "Records"
        return "Bytes"

    def cpp_type(self):
        if self.is_array:
            t = f"std::vector<{self.elem_cpp()}>"
            return f"std::optional<{t}>" if self.is_nullable_type() else t
        t = self.elem_cpp()
        if self.is_nullable_struct():
            return f"std::optional<{t}>"
        if self.elem in ("string", "bytes", "records") and self.is_nullable_type():
            return f"std::optional<{t}>"
        return t

    def default_literal(self):
        """C++ initializer for the member, or None for value-initialization."""
        d = self.default
        if self.is_array or self.struct:
            if d not in (None, "null", ""):
                raise GenError(f"{self.where}: arrays/structs take no default")
            return None
        if self.elem in ("string", "bytes", "records"):
            if self.elem != "string":
                if d not in (None, "null"):
                    raise GenError(f"{self.where}: bytes take no default")
                return None
            if self.is_nullable_type():
                if d is None or d == "null":
                    return None
                return f"std::string({json.dumps(d)})"
            if d == "null":
                raise GenError(f"{self.where}: null default on a non-nullable string")
            return json.dumps(d) if d else None
        if self.elem == "bool":
            if d is None:
                return "false"
            if d not in ("true", "false"):
                raise GenError(f"{self.where}: bad bool default {d}")
            return d
        if self.elem == "uuid":
            return "{}"
        if self.elem == "float64":
            return str(float(d)) if d is not None else "0.0"
        if self.elem == "errorCode":
            v = int(str(d), 0) if d is not None else 0
            if not -(1 << 15) <= v < (1 << 15):
                raise GenError(f"{self.where}: default out of range")
            return "ErrorCode::kNone" if v == 0 else f"static_cast<ErrorCode>({v})"
        v = int(str(d), 0) if d is not None else 0
        bits = {"int8": 8, "int16": 16, "int32": 32, "int64": 64, "uint16": 16}[self.elem]
        if self.elem == "uint16":
            if not 0 <= v < (1 << 16):
                raise GenError(f"{self.where}: default out of range")
            return str(v)
        if not -(1 << (bits - 1)) <= v < (1 << (bits - 1)):
            raise GenError(f"{self.where}: default out of range")
        if v == -(1 << (bits - 1)):
            return f"INT{bits}_MIN"
        return f"{v}LL" if bits == 64 and abs(v) > 0x7fffffff else str(v)

    def nondefault_expr(self, x):
        """C++ expression true when x differs from the default (tagged fields
        are only written then)."""
        if self.is_array:
            return f"{x}.has_value()" if self.is_nullable_type() else f"!{x}.empty()"
        if self.is_nullable_struct():
            return f"{x}.has_value()"
        if self.struct:
            return f"!({x} == {self.struct.name}{{}})"
        if self.elem == "uuid":
            return f"{x} != Uuid{{}}"
        lit = self.default_literal()
        if self.elem in ("string", "bytes", "records"):
            if self.is_nullable_type():
                return f"{x}.has_value()" if lit is None else f"{x} != {lit}"
            return f"!{x}.empty()" if lit is None else f"{x} != {lit}"
        return f"{x} != {lit}"


class Struct:
    def __init__(self, name, fields, msg, where, ctx):
        # ctx: the versions in which this struct can appear at all; version
        # checks inside it are simplified against that range.
        self.ctx = ctx
        self.name = name
        self.fields = [Field(f, msg, where, ctx) for f in fields]
        tags = [f.tag for f in self.fields if f.tag is not None]
        if len(tags) != len(set(tags)):
            raise GenError(f"{where}: duplicate tags")
        names = [f.cpp for f in self.fields]
        if len(names) != len(set(names)):
            raise GenError(f"{where}: duplicate field names")

    def children(self):
        """Structs declared inside this one (common structs are declared once,
        at message level)."""
        return [f.struct for f in self.fields if f.struct and not f.common]

    def uses(self, pred):
        return any(pred(f) or (f.struct is not None and f.struct is not self and f.struct.uses(pred))
                   for f in self.fields)


class Message:
    def __init__(self, d, path):
        self.name = d["name"]
        self.kind = d["type"]
        if self.kind not in ("request", "response", "data"):
            raise GenError(f"{path}: type must be request, response or data")
        # A "data" definition is a versioned struct carried inside another
        # message's bytes (Kafka's ConsumerProtocolSubscription): no api key.
        if self.kind == "data":
            if "apiKey" in d:
                raise GenError(f"{path}: a data definition has no apiKey")
            self.api_key = None
        else:
            self.api_key = d["apiKey"]
        self.valid = Versions(d["validVersions"])
        if self.valid.empty() or self.valid.hi == INF:
            raise GenError(f"{path}: validVersions must be a closed range")
        self.flexible = Versions(d.get("flexibleVersions"))
        if not self.flexible.empty() and self.flexible.hi != INF:
            raise GenError(f"{path}: flexibleVersions must be open-ended (N+)")
        self.first_flexible = self.flexible.lo if not self.flexible.empty() else None
        # commonStructs: structs several fields share (Kafka's JSON has the
        # same key); a field names one as its type and gives no fields.
        self.common = {}
        for c in d.get("commonStructs", []):
            cname = c["name"]
            if cname in self.common:
                raise GenError(f"{path}: common struct {cname} defined twice")
            ctx = self.valid.intersect(Versions(c.get("versions", "0+")))
            self.common[cname] = Struct(cname, c["fields"], self, f"{self.name}.{cname}", ctx)
        self.root = Struct(self.name, d.get("fields", []), self, self.name, self.valid)
        self.base = os.path.splitext(os.path.basename(path))[0]
        if self.base != snake(self.name):
            raise GenError(f"{path}: file should be named {snake(self.name)}.json")

    def api_name(self):
        """Kafka's API name: the message name without Request/Response."""
        for suffix in ("Request", "Response"):
            if self.name.endswith(suffix):
                return self.name[:-len(suffix)]
        return self.name

    # --- version conditions, simplified against the range they run in ---
    def cond(self, v, ctx=None):
        """C++ condition for `version in v`, or 'true'/'false', knowing the
        version is already within ctx (default: validVersions)."""
        ctx = ctx or self.valid
        v = v.intersect(ctx)
        if v.empty():
            return "false"
        parts = []
        if v.lo > ctx.lo:
            parts.append(f"version >= {v.lo}")
        if v.hi < ctx.hi:
            parts.append(f"version <= {v.hi}")
        return " && ".join(parts) if parts else "true"

    def flex_init(self, ctx=None):
        ctx = ctx or self.valid
        if self.first_flexible is None or self.first_flexible > ctx.hi:
            return "[[maybe_unused]] constexpr bool flex = false;"
        if self.first_flexible <= ctx.lo:
            return "[[maybe_unused]] constexpr bool flex = true;"
        return f"[[maybe_unused]] const bool flex = version >= {self.first_flexible};"
