"""Section markers become folds with line numbers; hostile markers cannot break the view."""

from __future__ import annotations

from labdeck.base.durations import format_duration
from labdeck.logtext.sections import SectionTracker, display_name, strip_markers


def feed(tracker: SectionTracker, lines: list[str]) -> list[str]:
    return [tracker.feed(number, line) for number, line in enumerate(lines)]


def test_nested_sections_get_depth_parent_and_inclusive_end_lines() -> None:
    tracker = SectionTracker()
    shown = feed(tracker, [
        "section_start:100:build\rBuild",
        "section_start:101:compile[collapsed=true,hide_duration=true]\rCompile",
        "cc main.c",
        "section_end:130:compile\r",
        "link",
        "section_end:160:build\rsection_start:160:test\rTest",
    ])
    assert shown == ["Build", "Compile", "cc main.c", "", "link", "Test"]
    build, compile_, test = tracker.sections
    assert (build.start_line, build.end_line, build.depth, build.duration) == (0, 4, 0, 60)
    assert (compile_.start_line, compile_.end_line, compile_.depth, compile_.parent) == (1, 2, 1, 0)
    assert compile_.collapsed and compile_.hide_duration and compile_.duration == 29
    assert test.is_open and test.end_line is None and test.duration is None
    assert [s.name for s in tracker.open_sections] == ["test"]
    assert tracker.section_at(2) is compile_
    assert tracker.section_at(4) is build
    assert tracker.section_at(5) is test


def test_an_end_marker_after_text_on_the_same_line_keeps_that_line_inside() -> None:
    tracker = SectionTracker()
    feed(tracker, ["section_start:1:a\rA", "last words section_end:2:a\r"])
    assert tracker.sections[0].end_line == 1


def test_ending_an_outer_section_closes_forgotten_inner_ones_and_stray_ends_are_ignored() -> None:
    tracker = SectionTracker()
    feed(tracker, ["section_end:5:ghost\r", "section_start:1:outer\r", "section_start:2:inner\r", "x",
                   "section_end:9:outer\r"])
    outer, inner = tracker.sections
    assert outer.end_line == inner.end_line == 3
    assert inner.ended_at == 9


def test_hostile_timestamps_and_names_cannot_break_anything() -> None:
    tracker = SectionTracker()
    shown = feed(tracker, [
        "section_start:1700000000:x\r",
        "section_end:1:x\r",  # ends before it started
        "section_start:99999999999999999999:y\rhuge stamp is not a marker",
        "section_start:1:bad name\rspaces are not allowed",
    ])
    assert tracker.sections[0].duration == 0
    assert len(tracker.sections) == 1
    assert shown[2].startswith("section_start:99999999999999999999:y\r")
    assert tracker.sections[0].started() is not None


def test_names_for_display_and_durations() -> None:
    assert display_name("step_script") == "Step script"
    assert display_name("upload_artifacts_on_success") == "Upload artifacts on success"
    assert display_name("my.first-section") == "My first section"
    # The viewer writes a section's time as every other screen writes a duration.
    assert format_duration(75) == "1m15s"
    assert format_duration(3725) == "1h02m"
    assert format_duration(None) == "—"
    assert strip_markers("section_end:2:a\rsection_start:2:b[collapsed=true]\rHeader") == "Header"
