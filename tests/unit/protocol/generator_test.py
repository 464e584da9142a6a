"""Unit tests for the message generator's model and validation
(src/protocol/gen). Run by ctest; stdlib only."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

GEN_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "src",
                       "protocol", "gen")
sys.dont_write_bytecode = True
sys.path.insert(0, GEN_DIR)

import model  # noqa: E402


def message(fields, name="ProbeRequest", **extra):
    d = {"name": name, "apiKey": 1000, "type": "request", "validVersions": "0-3",
         "flexibleVersions": "2+", "fields": fields}
    d.update(extra)
    return d


def build(d, filename="probe_request.json"):
    return model.Message(d, filename)


class SnakeCase(unittest.TestCase):
    def test_names(self):
        self.assertEqual(model.snake("ThrottleTimeMs"), "throttle_time_ms")
        self.assertEqual(model.snake("IsrNodes"), "isr_nodes")
        self.assertEqual(model.snake("TopicId"), "topic_id")
        self.assertEqual(model.snake("ZkMigrationReady"), "zk_migration_ready")
        self.assertEqual(model.snake("Index"), "index")

    def test_keyword_rejected(self):
        with self.assertRaises(model.GenError):
            model.snake("Default")


class VersionRanges(unittest.TestCase):
    def test_forms(self):
        v = model.Versions("3+")
        self.assertTrue(v.contains(3) and v.contains(100) and not v.contains(2))
        v = model.Versions("2-4")
        self.assertTrue(v.contains(2) and v.contains(4) and not v.contains(5))
        self.assertTrue(model.Versions("1").contains(1))
        self.assertTrue(model.Versions("none").empty())
        self.assertTrue(model.Versions(None).empty())


class Validation(unittest.TestCase):
    def test_good_message(self):
        m = build(message([{"name": "Acks", "type": "int16", "versions": "0+"}]))
        self.assertEqual(m.first_flexible, 2)
        self.assertEqual(m.root.fields[0].cpp, "acks")

    def bad(self, fields, **extra):
        with self.assertRaises(model.GenError):
            build(message(fields, **extra))

    def test_unknown_type(self):
        self.bad([{"name": "X", "type": "int128", "versions": "0+"}])

    def test_struct_without_fields(self):
        self.bad([{"name": "X", "type": "[]Thing", "versions": "0+"}])

    def test_nullable_int(self):
        self.bad([{"name": "X", "type": "int32", "versions": "0+", "nullableVersions": "0+"}])

    def test_nullable_struct(self):
        m = build(message([{"name": "Cursor", "type": "Cursor", "versions": "0+",
                            "nullableVersions": "1+", "default": "null", "fields": [
                                {"name": "Index", "type": "int32", "versions": "0+"}]},
                           {"name": "Many", "type": "[]Thing", "versions": "0+", "fields": [
                               {"name": "Index", "type": "int32", "versions": "0+"}]}]))
        cursor, many = m.root.fields
        self.assertTrue(cursor.is_nullable_struct())
        self.assertEqual(cursor.cpp_type(), "std::optional<Cursor>")
        self.assertIsNone(cursor.default_literal())
        self.assertFalse(many.is_nullable_struct())  # arrays stay arrays
        self.assertEqual(many.cpp_type(), "std::vector<Thing>")
        # Kafka tags no nullable struct; the generator refuses one.
        self.bad([{"name": "C", "type": "Cursor", "versions": "2+", "nullableVersions": "2+",
                   "tag": 0, "fields": [{"name": "I", "type": "int32", "versions": "2+"}]}])
        # Nullable only where the field is not on the wire makes no sense.
        self.bad([{"name": "C", "type": "Cursor", "versions": "0-1", "nullableVersions": "2+",
                   "fields": [{"name": "I", "type": "int32", "versions": "0+"}]}])
        # A struct takes no default but null.
        self.bad([{"name": "C", "type": "Cursor", "versions": "0+", "nullableVersions": "0+",
                   "default": "x", "fields": [{"name": "I", "type": "int32", "versions": "0+"}]}])

    def test_duplicate_tag(self):
        self.bad([{"name": "A", "type": "int32", "versions": "2+", "tag": 1},
                  {"name": "B", "type": "int32", "versions": "2+", "tag": 1}])

    def test_duplicate_field(self):
        self.bad([{"name": "A", "type": "int32", "versions": "0+"},
                  {"name": "A", "type": "int64", "versions": "0+"}])

    def test_default_out_of_range(self):
        self.bad([{"name": "A", "type": "int8", "versions": "0+", "default": "300"}])

    def test_open_valid_versions(self):
        self.bad([], validVersions="0+")

    def test_closed_flexible_versions(self):
        self.bad([], flexibleVersions="2-3")

    def test_records_cannot_be_tagged(self):
        self.bad([{"name": "R", "type": "records", "versions": "2+", "tag": 0}])
        self.bad([{"name": "S", "type": "Holder", "versions": "2+", "tag": 0, "fields": [
            {"name": "R", "type": "records", "versions": "2+"}]}])

    def test_arrays_of_records_refused(self):
        self.bad([{"name": "R", "type": "[]records", "versions": "0+"}])

    def test_error_code_type(self):
        m = build(message([{"name": "ErrorCode", "type": "errorCode", "versions": "0+"},
                           {"name": "Other", "type": "errorCode", "versions": "0+", "default": "-1"}]))
        self.assertEqual(m.root.fields[0].cpp_type(), "ErrorCode")
        self.assertEqual(m.root.fields[0].default_literal(), "ErrorCode::kNone")
        self.assertEqual(m.root.fields[1].default_literal(), "static_cast<ErrorCode>(-1)")
        self.bad([{"name": "E", "type": "errorCode", "versions": "0+", "default": "40000"}])

    def test_common_structs(self):
        common = [{"name": "Slot", "versions": "0+", "fields": [
            {"name": "Index", "type": "int32", "versions": "0+"}]}]
        m = build(message([{"name": "A", "type": "Slot", "versions": "0+"},
                           {"name": "B", "type": "[]Slot", "versions": "1+"}], commonStructs=common))
        a, b = m.root.fields
        self.assertIs(a.struct, b.struct)
        self.assertEqual(m.root.children(), [])  # declared once, at message level
        self.assertEqual(b.cpp_type(), "std::vector<Slot>")
        # A common struct is used by name only; redefining it is an error.
        self.bad([{"name": "A", "type": "Slot", "versions": "0+", "fields": [
            {"name": "X", "type": "int8", "versions": "0+"}]}], commonStructs=common)
        self.bad([], commonStructs=common + common)

    def test_data_definition_has_no_api_key(self):
        d = {"name": "ProbeData", "type": "data", "validVersions": "0-1",
             "flexibleVersions": "none", "fields": [{"name": "A", "type": "int32", "versions": "0+"}]}
        m = build(d, filename="probe_data.json")
        self.assertIsNone(m.api_key)
        with self.assertRaises(model.GenError):
            build(dict(d, apiKey=5), filename="probe_data.json")
        with self.assertRaises(model.GenError):
            build(dict(d, type="blob"), filename="probe_data.json")

    def test_file_name_must_match(self):
        with self.assertRaises(model.GenError):
            build(message([]), filename="other.json")


class CommandLine(unittest.TestCase):
    def run_gen(self, definition, filename):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, filename)
            with open(path, "w", encoding="utf-8") as fh:
                fh.write("// a comment line\n" + json.dumps(definition))
            out = os.path.join(tmp, "out")
            proc = subprocess.run([sys.executable, os.path.join(GEN_DIR, "generate.py"),
                                   "--out", out, path], capture_output=True, text=True)
            files = sorted(os.listdir(out)) if os.path.isdir(out) else []
            return proc, files

    def test_generates_files(self):
        proc, files = self.run_gen(message([{"name": "A", "type": "int32", "versions": "0+"}]),
                                   "probe_request.json")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(files, ["known_apis.h", "probe_request.cc", "probe_request.h"])

    def test_data_definition_generates_struct_without_api(self):
        d = {"name": "ProbeData", "type": "data", "validVersions": "0-1",
             "flexibleVersions": "none", "fields": [{"name": "A", "type": "int32", "versions": "0+"}]}
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "probe_data.json")
            with open(path, "w", encoding="utf-8") as fh:
                json.dump(d, fh)
            out = os.path.join(tmp, "out")
            proc = subprocess.run([sys.executable, os.path.join(GEN_DIR, "generate.py"),
                                   "--out", out, path], capture_output=True, text=True)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            with open(os.path.join(out, "probe_data.h"), encoding="utf-8") as fh:
                header = fh.read()
            with open(os.path.join(out, "known_apis.h"), encoding="utf-8") as fh:
                known = fh.read()
        self.assertIn("kMaxVersion = 1", header)
        self.assertNotIn("kApiKey", header)
        self.assertNotIn("ProbeData", known)

    def test_bad_definition_fails_with_message(self):
        proc, _ = self.run_gen(message([{"name": "A", "type": "nope", "versions": "0+"}]),
                               "probe_request.json")
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("unknown type", proc.stderr)


if __name__ == "__main__":
    unittest.main()
