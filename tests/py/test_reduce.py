"""tcresults.reduce: a row's reference found nearest first; a point over its rounds."""
from helpers import Case

from tcresults import reduce as red
from tcresults.schema import num


def row(test, p50, point="0", rnd="1", payload="8", frame="64", **kw):
    r = {"test": test, "p50_us": str(p50), "point": point, "round": rnd, "payload_bytes": payload,
         "frame_bytes": frame, "experiment": "e", "signal": "fenced", "wait": "poll", "placement": "default",
         "sw_prefetch": "off", "stress": "none"}
    r.update(kw)
    return r


P50 = lambda r: num(r.get("p50_us"))  # noqa: E731


class References(Case):
    def test_own_invocation_first(self):
        rows = [row("put_lat", 1.0, rnd="1"), row("put_lat", 2.0, rnd="2"), row("put_lat", 4.0, point="1", rnd="2")]
        refs = red.References(rows, ("put_lat",))
        self.assertEqual(refs.median("put_lat", row("jam_lat", 9, rnd="2"), P50), 2.0)
        self.assertEqual(refs.median("put_lat", row("jam_lat", 9, rnd="1"), P50), 1.0)

    def test_then_round_point_file(self):
        rows = [row("put_lat", 1.0, point="1", rnd="1"), row("put_lat", 3.0, point="0", rnd="2"),
                row("put_lat", 5.0, point="2", rnd="3")]
        refs = red.References(rows, ("put_lat",))
        self.assertEqual(refs.median("put_lat", row("jam_lat", 9, point="0", rnd="1"), P50), 1.0)   # same round
        self.assertEqual(refs.median("put_lat", row("jam_lat", 9, point="0", rnd="4"), P50), 3.0)   # same point
        self.assertEqual(refs.median("put_lat", row("jam_lat", 9, point="9", rnd="9"), P50), 3.0)   # file: median

    def test_frame_size_first_then_any(self):
        rows = [row("put_lat", 1.0, frame="64"), row("put_lat", 3.0, frame="128")]
        refs = red.References(rows, ("put_lat",))
        self.assertEqual(refs.median("put_lat", row("jam_lat", 9, frame="128"), P50), 3.0)
        self.assertEqual(refs.median("put_lat", row("jam_lat", 9, frame="256"), P50), 2.0)
        # keys=1: the frame size only (the floor of another size is no floor)
        self.assertIsNone(refs.median("put_lat", row("jam_lat", 9, frame="256"), P50, keys=1))

    def test_the_axes_must_match(self):
        # a put of another signal (another invocation in a file without a point
        # column) is not this jam's reference: tc-platforms pooled them once
        rows = [row("put_lat", 1.0, signal="fenced", point=""), row("put_lat", 0.2, signal="store", point="")]
        refs = red.References(rows, ("put_lat",))
        self.assertEqual(refs.median("put_lat", row("jam_lat", 1.2, signal="fenced", point=""), P50), 1.0)
        self.assertEqual(refs.median("put_lat", row("jam_lat", 0.3, signal="store", point=""), P50), 0.2)
        self.assertIsNone(refs.median("put_lat", row("jam_lat", 1, payload="16"), P50))

    def test_positive_values_only(self):
        rows = [row("put_lat", 0), row("put_lat", ""), row("put_lat", 2.0)]
        refs = red.References(rows, ("put_lat",))
        self.assertEqual(refs.median("put_lat", row("jam_lat", 1), P50), 2.0)
        self.assertEqual(len(refs.rows("put_lat", row("jam_lat", 1))), 3)
        self.assertIsNone(red.References(rows[:2], ("put_lat",)).median("put_lat", row("jam_lat", 1), P50))

    def test_scopes_and_keys(self):
        rows = [row("floor_lat", 1.0, rnd="1", frame="64", payload="8"),
                row("floor_lat", 2.0, rnd="1", frame="128", payload="8"),
                row("floor_lat", 3.0, rnd="1", frame="128", payload="64"),
                row("floor_lat", 4.0, rnd="2", frame="256", payload="8")]
        refs = red.References(rows, ("floor_lat",), [["frame_bytes", "payload_bytes"], ["frame_bytes"]],
                              ("invocation",))
        self.assertEqual(refs.rows("floor_lat", row("jam_lat", 1, frame="128", payload="8"))[0]["p50_us"], "2.0")
        self.assertEqual(refs.rows("floor_lat", row("jam_lat", 1, frame="128", payload="16"))[0]["p50_us"], "2.0")
        self.assertEqual(refs.rows("floor_lat", row("jam_lat", 1, frame="256", payload="8")), [])   # round 2's
        self.assertEqual(refs.rows("put_lat", row("jam_lat", 1)), [])

    def test_reference_test(self):
        self.assertEqual(red.reference_test("jam_lat"), "put_lat")
        self.assertEqual(red.reference_test("jam_rate"), "put_rate")
        self.assertEqual(red.reference_test("am_lat", "floor"), "floor_lat")


class PointTest(Case):
    def test_over_rounds(self):
        p = red.Point()
        for v in (3.0, 1.0, 2.0):
            p.add("p50", v)
        p.add("rate", 5.0)
        self.assertEqual(p.median("p50"), 2.0)
        self.assertIsNone(p.median("none"))
        self.assertEqual(p.medians(), {"p50": 2.0, "rate": 5.0})
        self.assertEqual(p.spans(), {"p50": (1.0, 3.0, 3), "rate": (5.0, 5.0, 1)})
