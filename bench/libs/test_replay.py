#!/usr/bin/env python3
"""Tests of bench/libs/replay.py, the false-proof check, on a small C library covered by
the fpforge binary ($FPFORGE, default target/release/fpforge):

- an input that takes a side coverage.json calls infeasible is reported (the side, its
  location, the input), and inputs that take none are not;
- a side fpforge really proved infeasible stays unreported on the same inputs;
- an input outside a `NAME in [LO, HI]` spec is skipped, not replayed;
- a trap contradicts a trap guard proved never to trap, not one proved always to trap;
- a regression.c whose coordinates do not give inputs.txt's lines is refused.

    python3 bench/libs/test_replay.py
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import replay  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
FPFORGE = Path(os.environ.get("FPFORGE", REPO / "target/release/fpforge"))

LIBRARY = r"""
int classify(double x, int mode, double *result) {
    int r = 0;
    if (x > 1.0) {
        r = 1;
        if (x < 0.5)          /* infeasible: fpforge proves it */
            r = 2;
    }
    if (mode == 2)
        r += 10;
    result[0] = x;
    return r;
}
"""


def afl_input(x, mode):
    """The raw bytes AFL++'s driver reads: 8 little-endian bytes a coordinate."""
    return struct.pack("<d", x) + struct.pack("<q", mode)


class ReplayTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="fpforge-replay-test-"))
        (cls.tmp / "lib.c").write_text(LIBRARY)
        cls.out = cls.tmp / "out"
        subprocess.run([str(FPFORGE), "cover", cls.tmp / "lib.c", "--all", "--out-arg", "result",
                        "--arg", "mode in [0, 2]", "--time-limit", "2", "--evals", "20000",
                        "--out", cls.out, "--quiet"], check=True)
        cls.dir = cls.out / "classify"
        cls.coverage = json.loads((cls.dir / "coverage.json").read_text())
        cls.library = replay.LibraryBitcode(cls.tmp / "replay", [cls.tmp / "lib.c"], [])
        queue = cls.tmp / "queue"
        queue.mkdir()
        cls.queue = []
        for i, (x, mode) in enumerate([(0.0, 0), (2.0, 1), (3.0, 2), (2.0, 7)]):
            path = queue / f"id:{i:06d}"
            path.write_bytes(afl_input(x, mode))
            cls.queue.append(path)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def check(self, out_dir, queue=None):
        return replay.check_function(FPFORGE, self.library, [], "classify", self.dir / "regression.c",
                                     out_dir, queue or self.queue, 200, {"mode": (0, 2)}, 2)

    def site_at_line(self, line):
        return next(s for s in self.coverage["sites"] if s["location"].split(":")[-2] == str(line))

    def test_a_real_proof_is_not_reported(self):
        inner = self.site_at_line(6)
        self.assertEqual([s["status"] for s in inner["sides"] if s["arm"] == "T"], ["infeasible"])
        result = self.check(self.dir)
        self.assertNotIn("error", result)
        self.assertEqual((result["replayed"], result["out_of_spec"], result["failed"]), (3, 1, 0))
        self.assertEqual(result["false_proofs"], [])
        # x = 2.0 and 3.0 execute the branch of the proved side (and take its other side).
        self.assertEqual((result["proved_sides"], result["proved_sides_reached"]), (1, 1))

    def test_a_taken_side_called_infeasible_is_a_false_proof(self):
        forged = self.tmp / "forged"
        shutil.copytree(self.dir, forged, dirs_exist_ok=True)
        coverage = json.loads((forged / "coverage.json").read_text())
        site = next(s for s in coverage["sites"] if s["location"].split(":")[-2] == "9")
        for side in site["sides"]:
            if side["arm"] == "T":
                side.update(status="infeasible", method="forged by the test")
        (forged / "coverage.json").write_text(json.dumps(coverage))
        result = self.check(forged)
        self.assertEqual(len(result["false_proofs"]), 1)
        proof = result["false_proofs"][0]
        self.assertEqual((proof["site"], proof["side"], proof["method"]), (site["id"], "T", "forged by the test"))
        self.assertTrue(proof["location"].endswith("lib.c:9:9"), proof["location"])
        # The only in-spec input with mode 2: x = 3.0 (mode 7 is outside the spec).
        self.assertEqual(proof["input"][:2], [f"raw:{struct.unpack('<Q', struct.pack('<d', 3.0))[0]:016x}", "2"])
        self.assertEqual(Path(proof["afl_file"]).name, "id:000002")
        self.assertEqual(self.check(forged, self.queue[:2])["false_proofs"], [])

    def test_a_harness_that_does_not_give_inputs_txt_is_refused(self):
        text = (self.dir / "regression.c").read_text()
        inputs = (self.dir / "inputs.txt").read_text()
        swapped = text.replace("fpforge_v[0]", "fpforge_v[@]").replace("fpforge_v[1]", "fpforge_v[0]") \
                      .replace("fpforge_v[@]", "fpforge_v[1]")
        replay.Harness(text, inputs.splitlines()[0]).check(text, inputs)
        with self.assertRaises(replay.HarnessError):
            replay.Harness(swapped, inputs.splitlines()[0]).check(text, inputs)


class ProofsTest(unittest.TestCase):
    """Which trap guard proofs a replay's trap contradicts."""

    def guard(self, infeasible_arm):
        sides = [{"arm": arm, "status": "infeasible" if arm == infeasible_arm else "covered",
                  "method": "m"} for arm in ("trap", "safe")]
        return {"sites": [{"id": "br7", "kind": "trap", "location": "f.c:3:9", "sides": sides}]}

    def test_a_guard_proved_never_to_trap_is_contradicted_by_a_trap_there(self):
        proofs = replay.Proofs.of(self.guard("trap"))
        result = {"false_proofs": [], "mismatches": []}
        replay.record(result, proofs, {}, {"sides": [], "trap": "division by zero in f at f.c:3:9"}, Path("id:0"), [])
        self.assertEqual([(p["site"], p["side"]) for p in result["false_proofs"]], [("br7", "trap")])

    def test_a_guard_proved_always_to_trap_is_not(self):
        proofs = replay.Proofs.of(self.guard("safe"))
        result = {"false_proofs": [], "mismatches": []}
        replay.record(result, proofs, {}, {"sides": [], "trap": "division by zero in f at f.c:3:9"}, Path("id:0"), [])
        self.assertEqual(result["false_proofs"], [])


class LongDoubleTest(unittest.TestCase):
    """regression.c's `fpforge_long_double(head, tail)` as x87 bits."""

    def test_the_tail_adds_units_of_two_to_the_minus_64_rounded_to_even(self):
        one = struct.unpack("<Q", struct.pack("<d", 1.0))[0]
        # 1 + 3 * 2^-64: half-way between significands ...01 and ...10, so ...10.
        self.assertEqual(replay.long_double_bits(one, 3), 0x3FFF_8000000000000002)
        # 1 - 2 * 2^-64 is in the binade below, where it is exact.
        self.assertEqual(replay.long_double_bits(one, 0xFFFE), 0x3FFE_FFFFFFFFFFFFFFFE)

    def test_a_signalling_nan_is_made_quiet(self):
        self.assertEqual(replay.long_double_bits(0x7FF0000000000001, 5), 0x7FFF_C000000000000800)


if __name__ == "__main__":
    unittest.main()
