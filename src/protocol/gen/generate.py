#!/usr/bin/env python3
"""Generates C++ message structs with encode/decode from Spool's JSON message
definitions (src/protocol/messages/*.json).

Usage: generate.py --out DIR [--include-prefix protocol] file.json...

Writes DIR/<file>.h and DIR/<file>.cc per definition and DIR/known_apis.h
(every API with a request definition). There is no umbrella header: code
includes the messages it uses. Only the Python standard library is used, because the
generator runs at build time on a bare build machine.

Definition schema (Spool's own; see src/protocol/messages/README.md):
  {"name": "ProduceRequest", "apiKey": 0, "type": "request" (or "response";
   "data" for a versioned struct with no apiKey, e.g. the consumer protocol),
   "validVersions": "0-8", "flexibleVersions": "9+",
   "fields": [ {"name": "Acks", "type": "int16", "versions": "0+",
                "nullableVersions": "..", "default": "..",
                "tag": 0, "taggedVersions": "..",
                "fields": [..nested struct fields..]} ]}
  plus optional "commonStructs": [{"name", "versions", "fields"}] shared by
  fields that name them as their type. Field types beyond the primitives:
  "errorCode" (int16, C++ protocol::ErrorCode) and "records" (C++
  protocol::Records: a view into the frame when decoded, bytes or file
  regions spliced in when encoded).
Lines whose first non-blank characters are // are comments.
"""

import argparse
import json
import os
import sys

# The generator runs from the source tree at build time; keep it clean.
sys.dont_write_bytecode = True

from model import PRIMS, GenError, Message, Versions  # noqa: E402


def and_cond(a, b):
    if a == "false" or b == "false":
        return "false"
    if a == "true":
        return b
    if b == "true":
        return a
    return f"({a}) && ({b})"


class Emitter:
    def __init__(self):
        self.lines = []
        self.depth = 0

    def line(self, text=""):
        self.lines.append(("  " * self.depth + text) if text else "")

    def open(self, text):
        self.line(text + " {" if text else "{")
        self.depth += 1

    def close(self, text="}"):
        self.depth -= 1
        self.line(text)

    def guarded(self, cond, body):
        """Emits body() under `if (cond)`, dropping trivially true/false guards."""
        if cond == "false":
            return
        if cond == "true":
            body()
            return
        self.open(f"if ({cond})")
        body()
        self.close()


class Gen:
    def __init__(self, msg, prefix="protocol"):
        self.msg = msg
        self.ctx = msg.valid  # versions the struct being emitted can appear in
        self.prefix = prefix
        self.uid = 0

    def tmp(self, base):
        self.uid += 1
        return f"{base}{self.uid}"

    # ---- encode ----
    def enc_value(self, e, f, x, w, elem=False):
        """Encode the value expression x of field f (an element if elem)."""
        kind = f.elem
        if f.is_array and not elem:
            arr = self.tmp("arr")
            null_c = self.cond(f.nullable)

            def write_array(src):
                e.line(f"wire::write_array_len({w}, {src}.size(), flex);")
                it = self.tmp("e")
                e.open(f"for (const auto& {it} : {src})")
                self.enc_value(e, f, it, w, elem=True)
                e.close()

            if f.is_nullable_type():
                e.open(f"if (!{x})")
                if null_c == "false":
                    e.line(f"wire::write_array_len({w}, 0, flex);")
                elif null_c == "true":
                    e.line(f"wire::write_null_array({w}, flex);")
                else:
                    e.line(f"if ({null_c}) wire::write_null_array({w}, flex);")
                    e.line(f"else wire::write_array_len({w}, 0, flex);")
                e.close("} else {")
                e.depth += 1
                e.line(f"const auto& {arr} = *{x};")
                write_array(arr)
                e.close()
            else:
                write_array(x)
            return
        if f.is_nullable_struct() and not elem:
            self.enc_nullable_struct(e, f, x, w)
        elif f.struct:
            e.line(f"{x}.encode({w}, version);")
        elif kind == "bool":
            e.line(f"{w}.i8({x} ? 1 : 0);")
        elif kind == "uuid":
            e.line(f"wire::write_uuid({w}, {x});")
        elif kind == "errorCode":
            e.line(f"{w}.i16(static_cast<int16_t>({x}));")
        elif kind == "records":
            e.line(f"wire::write_records({w}, {x}, flex, {self.cond(f.nullable)});")
        elif kind in PRIMS:
            e.line(f"{w}.{PRIMS[kind][2]}({x});")
        elif kind == "string":
            if f.is_nullable_type() and not elem:
                e.line(f"wire::write_nullable_string({w}, {x}, flex, {self.cond(f.nullable)});")
            else:
                e.line(f"wire::write_string({w}, {x}, flex);")
        else:  # bytes, records
            if f.is_nullable_type() and not elem:
                e.line(f"wire::write_nullable_bytes({w}, {x}, flex, {self.cond(f.nullable)});")
            else:
                e.line(f"wire::write_bytes({w}, {x}, flex);")

    def enc_nullable_struct(self, e, f, x, w):
        """int8 -1 for null, 1 then the struct in nullableVersions (Kafka's
        encoding); elsewhere the bare struct, a null one as its defaults."""
        null_c = self.cond(f.nullable)

        def marked():
            e.open(f"if (!{x})")
            e.line(f"{w}.i8(-1);")
            e.close("} else {")
            e.depth += 1
            e.line(f"{w}.i8(1);")
            e.line(f"{x}->encode({w}, version);")
            e.close()

        def bare():
            e.line(f"{x}.value_or({f.struct.name}{{}}).encode({w}, version);")

        self.marked_or_bare(e, null_c, marked, bare)

    @staticmethod
    def marked_or_bare(e, null_c, marked, bare):
        """Emits marked() where the nullable-versions condition holds and
        bare() elsewhere (just one of them when the condition is constant)."""
        if null_c in ("true", "false"):
            (marked if null_c == "true" else bare)()
            return
        e.open(f"if ({null_c})")
        marked()
        e.close("} else {")
        e.depth += 1
        bare()
        e.close()

    def dec_nullable_struct(self, e, f, x, r):
        """A negative marker is null (as Kafka reads it), any other is a
        struct; outside nullableVersions the struct is always there. The
        struct is built as `T{}` and moved in: clang rejects `emplace()` of a
        nested struct with default member initializers (it caches
        is_constructible<T> as false while the enclosing class is parsed)."""
        null_c = self.cond(f.nullable)

        def marked():
            e.open(f"if ({r}.i8() < 0)")
            e.line(f"{x} = std::nullopt;")
            e.close(f"}} else if ({r}.ok()) {{")
            e.depth += 1
            e.line(f"{x}.emplace({f.struct.name}{{}}).decode({r}, version);")
            e.close()

        def bare():
            e.line(f"{x}.emplace({f.struct.name}{{}}).decode({r}, version);")

        self.marked_or_bare(e, null_c, marked, bare)

    def min_size(self, f):
        if f.struct:
            return "1"
        if f.elem in PRIMS:
            return str(PRIMS[f.elem][1])
        if f.elem == "errorCode":
            return "2"
        if f.elem == "string":
            return "(flex ? 1 : 2)"
        return "(flex ? 1 : 4)"

    # ---- decode ----
    def dec_value(self, e, f, x, r, elem=False):
        kind = f.elem
        if f.is_array and not elem:
            n = self.tmp("n")
            e.open("")  # bare block scopes the temporaries
            e.line(f"const int64_t {n} = wire::read_array_len({r}, flex, {self.cond(f.nullable)}, "
                   f"{self.min_size(f)});")
            arr = self.tmp("arr")
            if f.is_nullable_type():
                e.open(f"if ({r}.ok() && {n} < 0)")
                e.line(f"{x} = std::nullopt;")
                e.close("} else if (" + r + ".ok()) {")
                e.depth += 1
                e.line(f"auto& {arr} = {x}.emplace();")
            else:
                e.open(f"if ({r}.ok())")
                e.line(f"auto& {arr} = {x};")
                e.line(f"{arr}.clear();")
            e.line(f"{arr}.reserve(static_cast<size_t>({n}));")
            i = self.tmp("i")
            e.open(f"for (int64_t {i} = 0; {i} < {n} && {r}.ok(); ++{i})")
            e.line(f"{arr}.emplace_back();")
            self.dec_value(e, f, f"{arr}.back()", r, elem=True)
            e.close()
            e.close()
            e.close()
            return
        if f.is_nullable_struct() and not elem:
            self.dec_nullable_struct(e, f, x, r)
        elif f.struct:
            e.line(f"{x}.decode({r}, version);")
        elif kind == "bool":
            e.line(f"{x} = {r}.i8() != 0;")
        elif kind == "uuid":
            e.line(f"{x} = wire::read_uuid({r});")
        elif kind == "errorCode":
            e.line(f"{x} = static_cast<ErrorCode>({r}.i16());")
        elif kind == "records":
            e.line(f"{x} = wire::read_records({r}, flex, {self.cond(f.nullable)});")
        elif kind in PRIMS:
            e.line(f"{x} = {r}.{PRIMS[kind][2]}();")
        elif kind == "string":
            if f.is_nullable_type() and not elem:
                e.line(f"{x} = wire::read_nullable_string({r}, flex, {self.cond(f.nullable)});")
            else:
                e.line(f"{x} = wire::read_string({r}, flex);")
        else:
            if f.is_nullable_type() and not elem:
                e.line(f"{x} = wire::read_nullable_bytes({r}, flex, {self.cond(f.nullable)});")
            else:
                e.line(f"{x} = wire::read_bytes({r}, flex);")

    # ---- struct bodies ----
    def cond(self, v):
        return self.msg.cond(v, self.ctx)

    def regular_cond(self, f):
        """Versions where f is an ordinary (not tagged) field."""
        ctx = self.ctx
        vs = [v for v in range(ctx.lo, ctx.hi + 1)
              if f.versions.contains(v) and not f.tagged.contains(v)]
        if not vs:
            return "false"
        if vs != list(range(vs[0], vs[-1] + 1)):
            raise GenError(f"{f.where}: ordinary versions must be contiguous")
        return self.cond(Versions(f"{vs[0]}-{vs[-1]}"))

    def tagged_fields(self, s):
        out = [f for f in s.fields if f.tag is not None and self.cond(f.tagged) != "false"]
        return sorted(out, key=lambda f: f.tag)

    def encode_body(self, e, s):
        self.ctx = s.ctx
        e.line(self.msg.flex_init(self.ctx))
        for f in s.fields:
            e.guarded(self.regular_cond(f), lambda f=f: self.enc_value(e, f, f.cpp, "w"))
        tagged = self.tagged_fields(s)

        def tag_section():
            if not tagged:
                e.line("w.uvarint(0);  // no tagged fields")
                return
            e.line("uint32_t tagged_count = 0;")
            for f in tagged:
                c = and_cond(self.cond(f.tagged), f.nondefault_expr(f.cpp))
                e.line(f"const bool write_{f.cpp} = {c};")
                e.line(f"if (write_{f.cpp}) ++tagged_count;")
            e.line("w.uvarint(tagged_count);")
            for f in tagged:
                e.open(f"if (write_{f.cpp})")
                e.line("ByteWriter tw;")
                self.enc_value(e, f, f.cpp, "tw")
                e.line(f"wire::write_tagged(w, {f.tag}, tw);")
                e.close()

        e.guarded("flex" if not self.msg.flex_init(self.ctx).endswith("= false;") else "false",
                  tag_section)

    def decode_body(self, e, s):
        self.ctx = s.ctx
        e.line(self.msg.flex_init(self.ctx))
        for f in s.fields:
            e.guarded(self.regular_cond(f), lambda f=f: self.dec_value(e, f, f.cpp, "r"))
        tagged = self.tagged_fields(s)

        def tag_section():
            e.line("const uint32_t tagged_count = r.uvarint32();")
            e.open("for (uint32_t t = 0; t < tagged_count && r.ok(); ++t)")
            e.line("const uint32_t tag = r.uvarint32();")
            e.line("const uint32_t size = r.uvarint32();")
            e.line("const ByteSpan payload = r.take(size);")
            e.line("if (!r.ok()) break;")
            if tagged:
                e.line("ByteReader tr(payload);")
                e.open("switch (tag)")
                for f in tagged:
                    e.open(f"case {f.tag}:")
                    c = self.cond(f.tagged)

                    def body(f=f):
                        self.dec_value(e, f, f.cpp, "tr")
                        # The declared size must be exactly the value's.
                        e.line("if (!tr.ok() || tr.remaining() != 0) r.fail();")
                    e.guarded(c, body)
                    e.line("break;")
                    e.close()
                e.line("default:  // unknown tags are skipped, as the protocol requires")
                e.line("  break;")
                e.close()
            else:
                e.line("(void)tag;")
                e.line("(void)payload;  // unknown tags are skipped, as the protocol requires")
            e.close()

        e.guarded("flex" if not self.msg.flex_init(self.ctx).endswith("= false;") else "false",
                  tag_section)

    # ---- declarations ----
    def declare(self, e, s, top):
        e.open(f"struct {s.name}")
        if top:
            m = self.msg
            ff = m.first_flexible if m.first_flexible is not None else "INT16_MAX"
            if m.api_key is not None:
                e.line(f"static constexpr int16_t kApiKey = {m.api_key};")
            e.line(f"static constexpr int16_t kMinVersion = {m.valid.lo};")
            e.line(f"static constexpr int16_t kMaxVersion = {m.valid.hi};")
            e.line(f"static constexpr int16_t kFirstFlexibleVersion = {ff};")
            if m.api_key is not None:
                e.line(f'static constexpr std::string_view kApiName = "{m.api_name()}";')
            e.line("")
            for common in m.common.values():
                self.declare(e, common, False)
                e.line("")
        for child in s.children():
            self.declare(e, child, False)
            e.line("")
        if top:
            for alias, path in self.aliases(s):
                e.line(f"using {alias} = {path};")
        for f in s.fields:
            lit = f.default_literal()
            init = f" = {lit}" if lit is not None else ""
            e.line(f"{f.cpp_type()} {f.cpp}{init};")
        e.line("")
        if top:
            e.line("// Body only (no header). `version` must be within [kMinVersion, kMaxVersion].")
            e.line("void encode(ByteWriter& w, int16_t version) const;")
            e.line("// False if malformed, truncated or the version is out of range.")
            e.line("bool decode(ByteReader& r, int16_t version);")
        else:
            e.line("void encode(ByteWriter& w, int16_t version) const;")
            e.line("bool decode(ByteReader& r, int16_t version);")
        e.line(f"bool operator==(const {s.name}&) const = default;")
        e.close("};")

    def aliases(self, root):
        """Deeper nested structs also reachable as Message::Name (Kafka's
        generated classes are flat) when the name is unambiguous."""
        found = {}

        def walk(s, path):
            for c in s.children():
                p = f"{path}::{c.name}" if path else c.name
                found.setdefault(c.name, []).append(p)
                walk(c, p)
        walk(root, "")
        for common in self.msg.common.values():
            walk(common, common.name)
        top = ({c.name for c in root.children()} | {f.cpp for f in root.fields}
               | set(self.msg.common))
        return [(n, ps[0]) for n, ps in sorted(found.items())
                if len(ps) == 1 and "::" in ps[0] and n not in top and n != root.name]

    def define(self, e, s, qual, top):
        if top:
            for common in self.msg.common.values():
                self.define(e, common, f"{qual}::{common.name}", False)
        for child in s.children():
            self.define(e, child, f"{qual}::{child.name}", False)
        e.open(f"void {qual}::encode(ByteWriter& w, int16_t version) const")
        self.encode_body(e, s)
        e.close()
        e.line("")
        e.open(f"bool {qual}::decode(ByteReader& r, int16_t version)")
        if top:
            e.line("if (version < kMinVersion || version > kMaxVersion) return false;")
            e.line(f"*this = {s.name}{{}};")
        self.decode_body(e, s)
        e.line("return r.ok();")
        e.close()
        e.line("")

    def header(self, src_name):
        e = Emitter()
        e.line(f"// Generated by src/protocol/gen/generate.py from {src_name}. Do not edit.")
        e.line("//")
        what = f"api key {self.msg.api_key}" if self.msg.api_key is not None else "data, no api key"
        e.line(f"// {self.msg.name} ({what}), versions "
               f"{self.msg.valid.lo}-{self.msg.valid.hi}. Plain data; decode() is fully")
        e.line("// bounds-checked and never throws. Not thread-safe (plain struct).")
        e.line("#pragma once")
        e.line("")
        for inc in ("<array>", "<cstdint>", "<optional>", "<string>", "<string_view>", "<vector>"):
            e.line(f"#include {inc}")
        e.line("")
        root = self.msg.root
        if root.uses(lambda f: f.elem == "errorCode"):
            e.line('#include "protocol/error_code.h"')
        if root.uses(lambda f: f.elem == "records"):
            e.line('#include "protocol/records.h"')
        e.line('#include "protocol/wire.h"')
        e.line('#include "util/bytes.h"')
        e.line("")
        e.line("namespace spool::protocol {")
        e.line("")
        self.declare(e, self.msg.root, True)
        e.line("")
        e.line("}  // namespace spool::protocol")
        return "\n".join(e.lines) + "\n"

    def source(self, src_name):
        e = Emitter()
        e.line(f"// Generated by src/protocol/gen/generate.py from {src_name}. Do not edit.")
        e.line(f'#include "{self.prefix}/{self.msg.base}.h"')
        e.line("")
        e.line("namespace spool::protocol {")
        e.line("")
        self.define(e, self.msg.root, self.msg.name, True)
        e.line("}  // namespace spool::protocol")
        return "\n".join(e.lines) + "\n"


def load(path):
    with open(path, encoding="utf-8") as fh:
        text = "\n".join("" if ln.lstrip().startswith("//") else ln for ln in fh.read().split("\n"))
    try:
        return json.loads(text)
    except json.JSONDecodeError as ex:
        raise GenError(f"{path}: {ex}") from ex


def write_if_changed(path, text):
    # Keeps timestamps stable so an unchanged message does not trigger rebuilds.
    try:
        with open(path, encoding="utf-8") as fh:
            if fh.read() == text:
                return
    except OSError:
        pass
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


def known_apis(msgs):
    """Every API with a request definition and where its flexible versions
    start, so headers can be parsed for APIs that are defined but not served."""
    reqs = sorted((m for m in msgs if m.kind == "request"), key=lambda m: m.api_key)
    out = ["// Generated by src/protocol/gen/generate.py. Do not edit.",
           "// Every API with a request definition: key, first flexible version",
           "// (INT16_MAX if none) and name. Immutable; thread-safe.",
           "#pragma once", "", "#include <cstdint>", "#include <string_view>", "",
           "namespace spool::protocol {", "",
           "struct KnownApi {", "  int16_t api_key;", "  int16_t first_flexible;",
           "  std::string_view name;", "};", "",
           "inline constexpr KnownApi kKnownApis[] = {"]
    for m in reqs:
        ff = m.first_flexible if m.first_flexible is not None else "INT16_MAX"
        name = m.api_name()
        out.append(f'    {{{m.api_key}, {ff}, "{name}"}},')
    out += ["};", "", "}  // namespace spool::protocol", ""]
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--include-prefix", default="protocol",
                    help="folder the generated headers are included from")
    ap.add_argument("inputs", nargs="+")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    msgs = []
    try:
        for p in sorted(args.inputs):
            msg = Message(load(p), p)
            g = Gen(msg, args.include_prefix)
            src_name = os.path.basename(p)
            write_if_changed(os.path.join(args.out, msg.base + ".h"), g.header(src_name))
            write_if_changed(os.path.join(args.out, msg.base + ".cc"), g.source(src_name))
            msgs.append(msg)
    except (GenError, KeyError, ValueError) as ex:
        print(f"generate.py: error: {ex}", file=sys.stderr)
        return 1
    write_if_changed(os.path.join(args.out, "known_apis.h"), known_apis(msgs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
