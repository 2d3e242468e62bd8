"""Passe game notation (core/notation.py, docs/notation.md) and replays
(core/replay.py): exact round trips over random games of every game, every
moment from every seat, and damaged or hostile files refused in one line
naming what and where."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.engine import GameRecord
from core.notation import (
    MAX_FILE_BYTES,
    MAX_LINE_CHARS,
    MAX_MOVES,
    MAX_TAGS,
    GameFile,
    GameFileError,
    decode,
    parse,
    write,
)
from core.replay import Replay, moment_text, parse_seat
from tests.core.notation_checks import TABLES, game_file_of, played
from tests.engine_checks import examples

seeds = st.integers(0, 2**32 - 1)


# -- round trips -----------------------------------------------------------------


@settings(max_examples=examples(300), deadline=None)
@given(table=st.sampled_from(TABLES), seed=seeds, cut=st.none() | st.floats(0, 1))
def test_every_game_round_trips_exactly_and_replays_to_its_end(
    table: tuple[str, int, bool], seed: int, cut: float | None
) -> None:
    """parse(write(game)) == game and write(parse(text)) == text, for whole
    games and unfinished ones; the replay ends where the game did."""
    state = played(*table, seed)
    moves = None if cut is None else int(cut * len(state.history))
    kept = game_file_of(state, seed=seed, cut=moves)
    text = write(kept)
    read = parse(text)
    assert read == kept
    assert write(read) == text
    assert parse(text, tags_only=True).record.actions == ()
    replay = Replay(read)
    assert replay.steps == len(kept.record.actions)
    if moves is None:
        assert replay.result == state.result()
        final = replay.moment(replay.steps, None).view
        assert final.is_over and final.result == state.result()


@pytest.mark.parametrize("game_id", ["passpass", "dominoes", "fashion"])
def test_a_finished_game_replays_to_its_scores_from_every_view(game_id: str) -> None:
    """Issue 21's acceptance: every seat's view and the spectator's end
    with the same result, and every moment from every view is the one the
    game had (its views compared with the original game's, move by move)."""
    players = {"passpass": 4, "dominoes": 3, "fashion": 4}[game_id]
    state = played(game_id, players, False, 11)
    replay = Replay(parse(write(game_file_of(state, seed=11))))
    game = replay.game
    again = game.new_game(replay.config, state.seed)
    for step in range(replay.steps + 1):
        if step:
            seat, action = state.history[step - 1]
            again.apply(seat, action)
        for view in replay.seats():
            assert replay.moment(step, view).view == again.view(view), (step, view)
    for view in replay.seats():
        final = replay.moment(replay.steps, view).view
        assert final.result == state.result()
    # Backwards too (the replay rebuilds its state from the deal).
    assert replay.moment(3, 0).view == game.replay(_first(state, 3)).view(0)


def _first(state: object, moves: int) -> GameRecord:
    from core.engine import GameState

    assert isinstance(state, GameState)
    record = state.record()
    return type(record)(record.game, record.config, record.seed, record.actions[:moves])


def test_events_of_a_moment_are_what_its_seat_was_shown() -> None:
    """A moment's events are those the table sends that seat: hidden
    information stays hidden (a fashion bid is not named to the others
    before the auction ends, FA-6)."""
    state = played("fashion", 3, False, 5)
    replay = Replay(parse(write(game_file_of(state, seed=5))))
    first_bid = replay.moment(1, 1)
    assert first_bid.latest and first_bid.latest == first_bid.events[-len(first_bid.latest) :]
    seat, text = replay.move(1) or (None, "")
    assert seat == 0 and text.startswith("bid ")
    code = text.split()[1]
    assert code in " ".join(e.describe(replay.names) for e in replay.moment(1, 0).events)
    assert code not in " ".join(e.describe(replay.names) for e in first_bid.events)
    assert code not in " ".join(e.describe(replay.names) for e in replay.moment(1, None).events)


def test_rounds_are_found_and_stepped_through() -> None:
    state = played("dominoes", 2, False, 3)
    replay = Replay(parse(write(game_file_of(state, seed=3))))
    starts = replay.round_starts()
    assert starts[0] == 0 and len(starts) >= 2
    assert [replay.round_at(start) for start in starts] == list(range(1, len(starts) + 1))
    assert replay.next_round(0) == starts[1]
    assert replay.next_round(starts[-1]) == replay.steps
    assert replay.previous_round(starts[1]) == 0
    assert replay.previous_round(starts[1] + 1) == starts[1]
    assert replay.previous_round(0) == 0


def test_comments_blank_lines_and_windows_line_ends_are_read_and_not_kept() -> None:
    kept = game_file_of(played("passpass", 3, False, 2), seed=2)
    text = write(kept)
    head, moves = text.split("\n\n", 1)
    lines = moves.splitlines()
    noted = "\r\n".join(
        [
            "; a comment before the tags",
            head.replace("\n", "\r\n"),
            "",
            "{ a comment",
            "  over two lines }",
            f"{lines[0]} ; the first move",
            f"{lines[1]}\t{{ braces }}",
            *lines[2:],
        ]
    )
    read = parse(decode(b"\xef\xbb\xbf" + (noted + "\r\n").encode("utf-8")))
    assert read == kept
    assert write(read) == text


def test_a_moment_as_text_names_where_who_and_what() -> None:
    state = played("passpass", 4, False, 9)
    kept = game_file_of(state, seed=9)
    kept = GameFile(kept.record, names=("You", "Ada", "Bruno", "Cleo"), viewer=0)
    replay = Replay(kept)
    text = moment_text(replay, 5, 1)
    first = text.splitlines()[0]
    steps = replay.steps
    assert first == f"Pass Pass, 4 players · step 5 of {steps} · round 1 · seen by seat 2 (Ada)"
    seat, move = replay.move(5) or (0, "")
    assert f"Last move: 5. {seat + 1}: {move}" in text
    assert "Log:" in text and "View:" in text and "  hand: " in text
    end = moment_text(replay, replay.steps, None)
    assert "Game over:" in end and "seen by the spectator" in end
    assert "Scores: You " in end
    assert parse_seat("spectator", 4) is None and parse_seat("2", 4) == 1
    for bad in ("0", "5", "two"):
        with pytest.raises(ValueError, match="--seat"):
            parse_seat(bad, 4)


# -- damaged and hostile files ---------------------------------------------------


def _base() -> str:
    return write(game_file_of(played("passpass", 3, False, 4), seed=4))


def _with(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new, 1)


def _lines(text: str) -> list[str]:
    return text.split("\n")


def _refused(text: str, what: str, line: int | None) -> GameFileError:
    with pytest.raises(GameFileError) as caught:
        Replay(parse(text))
    error = caught.value
    message = str(error)
    assert "\n" not in message and message.isprintable(), message
    assert what in message, message
    assert error.line == line, message
    if line is not None:
        assert message.startswith(f"line {line}: ")
    return error


def _line(text: str, start: str) -> str:
    return _lines(text)[_line_of(text, start) - 1]


def _line_of(text: str, start: str) -> int:
    return next(n for n, line in enumerate(_lines(text), start=1) if line.startswith(start))


def test_form_errors_name_what_and_the_line() -> None:
    base = _base()
    moves = _line_of(base, "1. ")
    last = len(_lines(base)) - 1  # the file's last line (it ends with a line break)

    def at(text: str, start: str) -> tuple[str, int]:
        return text, _line_of(text, start)

    cases: list[tuple[tuple[str, int | None], str]] = [
        (("", None), "no tags"),
        (("hello\n", 1), "not a Passe game record"),
        (('[Event "x"]\n', None), 'no [Format "passe/1"] tag'),
        ((base[:-1], last), "cut short"),
        ((_with(base, '"passe/1"', '"passe/2"'), 1), "newer Passe"),
        ((_with(base, "[Seed ", "[Sed "), None), "the tag Seed"),
        ((_with(base, '[Game "passpass"]', '[Game "passpass"]\n[Game "x"]'), 3), "a second Game"),
        ((_with(base, '[Game "passpass"]', "[Game passpass]"), 2), "not one JSON value"),
        ((_with(base, '[Game "passpass"]', '[Game "passpass"'), 2), "[Name value]"),
        ((_with(base, '[Game "passpass"]', "[Game 3]"), 2), "expected text"),
        (at(_with(base, "[Seed ", '[Seed "x"]\n[Old '), "[Seed "), "whole number in quotes"),
        (at(_with(base, "[Seed ", f'[Seed "{2**64}"]\n[Old '), "[Seed "), "is not a seed"),
        (at(_with(base, '"players": 3', '"players": 0'), "[Config "), "players must be"),
        (at(_with(base, '"players": 3', '"players": NaN'), "[Config "), "not one JSON value"),
        (at(_with(base, _line(base, "[Date "), '[Date "today"]'), "[Date "), "YYYY-MM-DD"),
        ((_with(base, "\n1. ", "\n1. 4: V1\n2. "), moves), "no seat 4 among 3"),
        ((_with(base, "\n1. ", "\n2. "), moves), "move 1 expected, not 2"),
        ((_with(base, "\n1. ", "\n1.V1\n1. "), moves), "is not a move"),
        ((_with(base, "\n2. ", "\n{ never closed\n2. "), moves + 1), "never closed"),
        ((_with(base, "\n2. ", "\n} stray\n2. "), moves + 1), "closes no {"),
        ((_with(base, "\n2. ", '\n[Late "tag"]\n2. '), moves + 1), "a tag after the moves"),
        (("\n".join(_lines(base)[:-3]) + "\n", last - 2), "cut short"),
        ((_with(base, "\n1. ", "\n; " + "y" * MAX_LINE_CHARS + "\n1. "), moves), "longer than"),
    ]
    for (text, line), what in cases:
        _refused(text, what, line)


def _found_line(text: str) -> GameFileError | None:
    try:
        Replay(parse(text))
    except GameFileError as error:
        return error
    return None


def test_each_form_error_is_on_its_line() -> None:
    """The line a tag error names is the tag's own."""
    base = _base()
    for tag, bad in [
        ("Seed", '[Seed "x"]'),
        ("Date", '[Date "yesterday"]'),
        ("Players", '[Players ["Ada"]]'),
        ("Viewer", "[Viewer 9]"),
        ("Scores", "[Scores [1, 2]]"),
        ("Winners", "[Winners [0]]"),
        ("Config", '[Config {"teams": false}]'),
    ]:
        lines = _lines(base)
        number = next(n for n, line in enumerate(lines, start=1) if line.startswith(f"[{tag} "))
        lines[number - 1] = bad
        error = _found_line("\n".join(lines))
        assert error is not None and error.line == number, (tag, error)


def test_control_and_format_characters_are_refused_raw_or_escaped() -> None:
    base = _base()
    for name in ("\x1b]0;PWNED\x07", "\\u001b[31m", "\u202eevil", "\\u202e", "zero\u200bwidth"):
        text = _with(base, '"players": 3', '"players": 3, "x": "' + name + '"')
        error = _found_line(text)
        assert error is not None and "control or format character" in str(error), name
        assert str(error).isprintable()
    error = _found_line(_with(base, "\n1. ", "\n; \x1b[2J\n1. "))
    assert error is not None and "control or format character" in str(error)


def test_bounds_refuse_what_is_too_large() -> None:
    base = _base()
    with pytest.raises(GameFileError, match="larger than 512 KiB"):
        decode(b" " * (MAX_FILE_BYTES + 1))
    with pytest.raises(GameFileError, match="larger than 512 KiB"):
        parse(" " * (MAX_FILE_BYTES + 1))
    many = "".join(f'[Tag{n} "x"]\n' for n in range(MAX_TAGS))
    assert "more than 64 tags" in str(_found_line(_with(base, "[Moves", many + "[Moves")))
    head = base.split("\n\n")[0].replace(
        f"[Moves {len(parse(base).record.actions)}]", f"[Moves {MAX_MOVES + 1}]"
    )
    endless = head + "\n\n" + "".join(f"{n}. 1: V1\n" for n in range(1, MAX_MOVES + 2))
    assert "more than 10000 moves" in str(_found_line(endless))
    deep = _with(base, '"players": 3', '"players": 3, "x": ' + "[" * 900 + "]" * 900)
    assert "nested more than 32 deep" in str(_found_line(deep))
    with pytest.raises(GameFileError, match="not UTF-8 text"):
        decode(b'[Format "passe/1"]\n[Game "\xff"]\n')


def test_records_that_do_not_replay_name_the_move_and_its_line() -> None:
    base = _base()
    kept = parse(base)
    moves = _line_of(base, "1. ")
    first, second = kept.record.actions[0], kept.record.actions[1]
    swapped = _with(base, f"1. {first[0] + 1}: {first[1]}\n", f"1. {second[0] + 1}: {second[1]}\n")
    _refused(swapped, "move 1 (seat", moves)
    garbage = _with(base, f"1. {first[0] + 1}: {first[1]}\n", f"1. {first[0] + 1}: zzz\n")
    _refused(garbage, "does not replay", moves)
    _refused(_with(base, '"passpass"', '"chess"'), "unknown game 'chess'", 2)
    config = _line_of(base, "[Config ")
    _refused(_with(base, '"teams": false', '"teams": true'), "tag Config", config)
    _refused(_with(base, '"teams": false', '"teams": false, "colour": 1'), "unknown option", config)
    scores = _line_of(base, "[Scores ")
    assert kept.outcome is not None
    wrong = list(kept.outcome.scores)
    wrong[0] += 1
    _refused(
        _with(base, f"[Scores {list(kept.outcome.scores)}]".replace("'", ""), f"[Scores {wrong}]"),
        "the moves give",
        scores,
    )
    # A move after the end: the game was already over.
    count = len(kept.record.actions)
    last_seat = kept.record.actions[-1][0] + 1
    longer = _with(base, f"[Moves {count}]", f"[Moves {count + 1}]")
    longer += f"{count + 1}. {last_seat}: V1\n"
    _refused(longer, "already over", len(_lines(base)))
    # Unfinished, yet it gives its result.
    shorter = "\n".join(_lines(base)[:-2]) + "\n"
    shorter = _with(shorter, f"[Moves {count}]", f"[Moves {count - 1}]")
    _refused(shorter, "not over after its", _line_of(base, "[Winners "))


@settings(max_examples=examples(200), deadline=None)
@given(seed=seeds, data=st.data())
def test_damaged_files_are_refused_or_read_never_a_crash(seed: int, data: st.DataObject) -> None:
    """Random damage (bytes changed, lines lost, doubled or swapped, the
    file cut short): every file is read, or refused with a GameFileError in
    one printable line; nothing else is ever raised."""
    base = _base().encode("utf-8")
    rng = random.Random(seed)
    damaged = bytearray(base)
    for _ in range(data.draw(st.integers(1, 4))):
        kind = rng.randrange(4)
        if kind == 0 and damaged:
            damaged[rng.randrange(len(damaged))] = rng.randrange(256)
        elif kind == 1:
            lines = bytes(damaged).split(b"\n")
            del lines[rng.randrange(len(lines))]
            damaged = bytearray(b"\n".join(lines))
        elif kind == 2:
            lines = bytes(damaged).split(b"\n")
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
            damaged = bytearray(b"\n".join(lines))
        else:
            damaged = damaged[: rng.randrange(len(damaged) + 1)]
    try:
        Replay(parse(decode(bytes(damaged))))
    except GameFileError as error:
        assert "\n" not in str(error) and str(error).isprintable()
