"""Garbled tables (net.garble): the evaluator holding one label per input wire opens
exactly the gate rows and items of its values, and nothing else."""

from __future__ import annotations

import itertools
import random

import pytest

from wec.net.garble import LABEL_SIZE, Evaluator, GarbleError, Garbler, select

SEED = bytes(range(32))


def test_every_gate_gives_the_output_label_of_its_table_at_the_inputs_values() -> None:
    rng = random.Random(1)
    for k in range(1, 5):
        for _ in range(20):
            g = Garbler(SEED, b"run %d" % k)
            inputs = [g.wire() for _ in range(k)]
            table = [rng.random() < 0.5 for _ in range(1 << k)]
            out = g.gate(inputs, table)
            material = b"".join(g.material)
            assert len(material) == LABEL_SIZE << k
            for values in itertools.product((0, 1), repeat=k):
                x = sum(v << i for i, v in enumerate(values))
                e = Evaluator(b"run %d" % k, material)
                got = e.gate([g.label(w, v) for w, v in zip(inputs, values, strict=True)])
                e.done()
                assert got == g.label(out, table[x])
                assert got != g.label(out, not table[x])


def test_the_two_labels_of_a_wire_differ_in_their_select_bit_as_the_seed_has_it() -> None:
    flips = set()
    for seed in range(40):
        g = Garbler(bytes([seed]) * 32, b"run")
        zero, one = g.labels(g.wire())
        assert select(zero) != select(one) and len(zero) == len(one) == LABEL_SIZE
        flips.add(select(zero))
    assert flips == {0, 1}  # the select bit tells nothing of the value


def test_an_item_opens_with_its_label_only_and_padding_with_none() -> None:
    g = Garbler(SEED, b"items")
    w = g.wire()
    g.seal(w, 1, b"the piece")
    g.seal(w, 0, b"nothing!!")
    g.material.append(g.noise(9))
    material = b"".join(g.material)
    for value, expect in ((1, [b"the piece", None, None]), (0, [None, b"nothing!!", None])):
        e = Evaluator(b"items", material)
        assert [e.open(g.label(w, value), 9) for _ in range(3)] == expect
        e.done()


def test_a_row_opened_with_labels_of_another_run_is_noise() -> None:
    g = Garbler(SEED, b"one run")
    a, b = g.wire(), g.wire()
    out = g.gate([a, b], [False, False, False, True])
    material = b"".join(g.material)
    got = Evaluator(b"another run", material).gate([g.label(a, 1), g.label(b, 1)])
    assert got not in g.labels(out)


def test_garbling_is_remade_byte_for_byte_from_the_seed_and_run() -> None:
    def made(seed: bytes, run: bytes) -> bytes:
        g = Garbler(seed, run)
        a, b = g.wire(), g.wire()
        c = g.gate([a, b], [True, False, False, True])
        g.seal(c, 1, b"x" * 20)
        return b"".join(g.material)

    assert made(SEED, b"r") == made(SEED, b"r")
    assert made(SEED, b"r") != made(SEED, b"s")
    assert made(SEED, b"r") != made(bytes(32), b"r")


def test_material_of_the_wrong_length_is_refused() -> None:
    g = Garbler(SEED, b"r")
    a = g.wire()
    g.gate([a], [True, False])
    material = b"".join(g.material)
    with pytest.raises(GarbleError, match="shorter"):
        Evaluator(b"r", material[:-1]).gate([g.label(a, 0)])
    e = Evaluator(b"r", material + b"\0")
    e.gate([g.label(a, 0)])
    with pytest.raises(GarbleError, match="longer"):
        e.done()


def test_a_gate_refuses_a_table_that_does_not_fit_its_inputs() -> None:
    g = Garbler(SEED, b"r")
    a = g.wire()
    with pytest.raises(ValueError, match="rows"):
        g.gate([a], [True])
    with pytest.raises(ValueError, match="wires"):
        g.gate([a] * 5, [True] * 32)


def test_opening_an_item_at_once_reads_as_taking_it_then_opening_it() -> None:
    """``Evaluator.open`` unseals the check and the payload as one integer; it must read
    exactly as ``take_item`` then ``open_item`` (the form the places keep for later),
    for the item's label, the other label and padding, at every payload size."""
    rng = random.Random(7)
    g = Garbler(SEED, b"both ways")
    wires = [g.wire() for _ in range(6)]
    sizes = []
    for w in wires:
        for value in (0, 1):
            size = rng.randrange(1, 40)
            sizes.append((w, size))
            g.seal(w, value, rng.randbytes(size))
        size = rng.randrange(1, 40)
        sizes.append((w, size))
        g.material.append(g.noise(size))
    material = b"".join(g.material)
    opened = 0
    for value in (0, 1):
        at_once, in_two = Evaluator(b"both ways", material), Evaluator(b"both ways", material)
        for w, size in sizes:
            label = g.label(w, value)
            got = at_once.open(label, size)
            assert got == in_two.open_item(in_two.take_item(size), label)
            opened += got is not None
        at_once.done()
        in_two.done()
    assert opened == 2 * len(wires)  # each label opens its own item and nothing else
