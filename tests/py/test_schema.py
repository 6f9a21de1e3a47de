"""tcresults.schema: the one reader, the one number parser."""
import json
import os
import re

from helpers import DATA, TOP, Case, csv_text

from tcresults import schema


class Num(Case):
    def test_numbers(self):
        self.assertEqual(schema.num("1.5"), 1.5)
        self.assertEqual(schema.num(" 2 "), 2.0)
        self.assertEqual(schema.num("1e3"), 1000.0)
        self.assertEqual(schema.num(7), 7.0)

    def test_no_value(self):
        for s in ("", None, "abc", "-", "1,5"):
            self.assertIsNone(schema.num(s), s)

    def test_inf_and_nan_are_no_value(self):
        # the one rule: a value that is not finite is no value (tc-compare's
        # rule; tc-claims and tc-platforms let them through before)
        for s in ("inf", "-inf", "nan", "NaN", "Infinity", float("inf")):
            self.assertIsNone(schema.num(s), s)

    def test_median(self):
        self.assertIsNone(schema.median([]))
        self.assertEqual(schema.median([3, 1, 2]), 2)


class Read(Case):
    def meta_exp(self, axes):
        return {"point_axes": [{"point": p, "axes": a} for p, a in axes.items()]}

    def test_defaults_fill_empty_and_absent_axes(self):
        p = self.write("e.csv", csv_text("point,test,wait,payload_bytes", "0,jam_lat,,8", "0,put_lat,pause,8"))
        t = schema.read(p)
        self.assertEqual([r["wait"] for r in t.rows], ["poll", "pause"])
        for k, v in schema.AXIS_DEFAULTS_V0.items():
            if k != "wait":
                self.assertEqual(t.rows[0][k], v)
        self.assertEqual(t.rows[0]["round"], schema.ROUND_DEFAULT)
        self.assertEqual(t.fields, ["point", "test", "wait", "payload_bytes"])

    def test_as_written(self):
        p = self.write("e.csv", csv_text("point,test,wait", "0,jam_lat,"))
        r = schema.read(p, defaults=False).rows[0]
        self.assertEqual(r["wait"], "")
        self.assertNotIn("round", r)

    def test_axis_columns_from_meta(self):
        p = self.write("e.csv", csv_text("point,test,jam", "0,jam_lat,a", "1,jam_lat,b", "2,put_lat,"))
        em = self.meta_exp({0: {"stash": "on", "jam": "a"}, 1: {"stash": None, "naive": True}})
        t = schema.read(p, em)
        self.assertEqual(t.axes, ["axis:naive", "axis:stash"])
        self.assertEqual(t.rows[0]["axis:stash"], "on")
        self.assertEqual(t.rows[1]["axis:stash"], "")        # null: not set
        self.assertEqual(t.rows[1]["axis:naive"], "True")
        self.assertNotIn("axis:jam", t.rows[0])               # the CSV has the column
        self.assertNotIn("axis:stash", t.rows[2])             # point 2 has no axes

    def test_fill_from_axes(self):
        p = self.write("e.csv", csv_text("point,test,jam", "0,jam_lat,a", "0,put_lat,", "1,put_lat,"))
        em = self.meta_exp({0: {"jam": "a"}, 1: {"jam": None}})
        rows = schema.fill_from_axes(schema.read(p, em).rows, em)
        self.assertEqual([r["jam"] for r in rows], ["a", "a", ""])

    def test_kind(self):
        self.assertEqual(schema.kind(["test", "jam"]), schema.PERF)
        self.assertEqual(schema.kind(["mode", "n", "radix"]), schema.MCAST)
        self.assertEqual(schema.kind(["mode", "radix"]), schema.PERF)

    def test_invocation_and_group(self):
        rows = [{"point": "0", "round": "1"}, {"point": "1", "round": "1"}, {"point": "0", "round": "1"}]
        g = schema.group(rows, schema.invocation)
        self.assertEqual(list(g), [("0", "1"), ("1", "1")])
        self.assertEqual(len(g[("0", "1")]), 2)
        self.assertEqual(schema.invocation({}), ("", ""))


class Meta(Case):
    def test_absent_broken_file(self):
        self.assertEqual(schema.load_meta(self.tmp), {})
        self.write("meta.json", "{broken")
        self.assertEqual(schema.load_meta(self.tmp), {})
        self.assertEqual(schema.load_meta(self.path("meta.json")), {})   # a file, not a folder
        self.write("meta.json", json.dumps({"platform_id": "x"}))
        self.assertEqual(schema.load_meta(self.tmp), {"platform_id": "x", "schema_version": schema.SCHEMA_VERSION})

    def test_exp_meta_and_point_axes(self):
        m = {"experiments": {"e": {"point_axes": [{"point": 3, "axes": {"a": 1}}, {"point": 4}]}}}
        self.assertEqual(schema.point_axes(schema.exp_meta(m, "e")), {"3": {"a": 1}, "4": {}})
        self.assertEqual(schema.exp_meta(m, "f"), {})
        self.assertEqual(schema.exp_meta({"experiments": None}, "e"), {})


class Helpers(Case):
    def test_size_label(self):
        self.assertEqual(schema.size_label(4), "4 B")
        self.assertEqual(schema.size_label("4096"), "4 KiB")
        self.assertEqual(schema.size_label(1536), "1536 B")

    def test_sort_key(self):
        self.assertEqual(sorted([("10",), ("9",), ("b",), ("a",)], key=schema.sort_key),
                         [("9",), ("10",), ("a",), ("b",)])

    def test_experiments_in_file_name_order(self):
        for n in ("fig13-14-wait.csv", "fig13-14-wait-sparse.csv", "x.dist.csv", "notes.md"):
            self.write(n, "a\n")
        # '-' sorts before '.': the order of the file names, as glob gave it
        self.assertEqual(schema.experiments(self.tmp), ["fig13-14-wait-sparse", "fig13-14-wait"])
        self.assertEqual(schema.experiments(self.path("nope")), [])


class FolderTest(Case):
    def test_fixture(self):
        f = schema.Folder(os.path.join(DATA, "claims", "full"))
        self.assertEqual(f.id, "fixture-full")
        self.assertIsNone(f.table("absent"))
        self.assertIsNone(f.rows("absent"))
        self.assertEqual(f.rounds("fig07-08-injected"), [1, 2, 3])
        self.assertIs(f.table("fig07-08-injected"), f.table("fig07-08-injected"))   # read once
        self.assertEqual(f.support("wait.wfe"), "supported")
        self.assertEqual(f.support("no.such"), "platform report has no no.such")

    def test_without_meta(self):
        d = self.path("plat-x")
        os.makedirs(d)
        f = schema.Folder(d)
        self.assertEqual(f.id, "plat-x")
        self.assertEqual(f.platform, {})
        self.assertEqual(f.support("pmu"), "platform report has no pmu")


class Migrate(Case):
    """schema_version: the one migration (issue 45: AXIS_DEFAULTS filled any
    file in implicitly; now a file without a version is version 0)"""

    def test_the_tools_write_the_readers_version(self):
        with open(os.path.join(TOP, "bench", "tool.h")) as f:
            m = re.search(r"#define TC_TOOL_SCHEMA_VERSION (\d+)", f.read())
        self.assertIsNotNone(m)
        self.assertEqual(int(m.group(1)), schema.SCHEMA_VERSION)

    def test_version_0_rows_are_migrated(self):
        for head, row in (("point,test,wait", "0,jam_lat,"), ("point,test,wait,schema_version", "0,jam_lat,,")):
            r = schema.read(self.write("e.csv", csv_text(head, row))).rows[0]
            self.assertEqual(r["schema_version"], str(schema.SCHEMA_VERSION))
            for k, v in schema.AXIS_DEFAULTS_V0.items():
                self.assertEqual(r[k], v, (head, k))
            self.assertEqual(r["round"], schema.ROUND_DEFAULT)

    def test_current_rows_are_read_as_written(self):
        p = self.write("e.csv", csv_text("point,test,wait,signal,schema_version", "0,jam_lat,pause,,1"))
        r = schema.read(p).rows[0]
        self.assertEqual((r["wait"], r["signal"]), ("pause", ""))    # nothing filled in for version 1
        self.assertNotIn("placement", r)
        self.assertEqual(r["round"], schema.ROUND_DEFAULT)            # a file outside the runner: one round

    def test_version_1_jam_rows_sent_and_version_2_rows_keep_their_api(self):
        for v in ("", "1"):    # version 0 and 1: before tc-perf --api
            p = self.write("e.csv", csv_text("point,test,schema_version", "0,jam_lat," + v,
                                             "0,put_lat," + v))
            jam, put = schema.read(p).rows
            self.assertEqual(jam["api"], schema.API_DEFAULT, v)
            self.assertNotIn("api", put)                               # a reference has none
        p = self.write("f.csv", csv_text("point,test,api,schema_version", "0,jam_rate,prepared,2",
                                         "0,put_rate,,2"))
        jam, put = schema.read(p).rows
        self.assertEqual((jam["api"], put["api"]), ("prepared", ""))

    def test_migrate_is_idempotent_and_names_what_it_takes(self):
        r = schema.migrate({"test": "jam_lat"})
        self.assertEqual(schema.migrate(dict(r)), r)
        with self.assertRaisesRegex(ValueError, "what='table'"):
            schema.migrate({}, "table")

    def test_a_newer_or_bad_version_is_an_error_naming_the_line(self):
        p = self.write("e.csv", csv_text("point,test,schema_version", "0,jam_lat,1", "0,put_lat,%d"
                                         % (schema.SCHEMA_VERSION + 1)))
        with self.assertRaisesRegex(ValueError, r"e.csv:3: schema_version \d+ is newer than this reader's"):
            schema.read(p)
        p = self.write("f.csv", csv_text("point,test,schema_version", "0,jam_lat,x"))
        with self.assertRaisesRegex(ValueError, r"f.csv:2: schema_version 'x' is not a version"):
            schema.read(p)
        self.assertEqual(schema.read(p, defaults=False).rows[0]["schema_version"], "x")    # as written

    def test_meta(self):
        d = self.path("old")
        os.makedirs(d)
        with open(os.path.join(d, "meta.json"), "w") as f:
            json.dump({"platform_id": "p"}, f)
        m = schema.load_meta(d)
        self.assertEqual((m["schema_version"], m["platform_id"]), (schema.SCHEMA_VERSION, "p"))
        with open(os.path.join(d, "meta.json"), "w") as f:
            json.dump({"schema_version": schema.SCHEMA_VERSION + 1}, f)
        with self.assertRaisesRegex(ValueError, "newer than this reader's"):
            schema.load_meta(d)

    def test_the_committed_results_are_version_0_and_read_alike(self):
        # every committed CSV predates the version: read as before (the
        # defaults of version 0 filled in), so no figure or claim moves
        d = os.path.join(TOP, "results", "x86_64-intel-xeon-2c-91afb010")
        t = schema.read(os.path.join(d, "fig07-08-injected.csv"))
        self.assertTrue(all(r["schema_version"] == str(schema.SCHEMA_VERSION) and r["wait"] and r["round"]
                            for r in t.rows))
        self.assertTrue(all(r["api"] == "send" for r in t.rows if r["test"].startswith("jam_")))
