"""An error group's text is read up to GROUP_CHARS: another logs server's multi-megabyte sample must
not make every rule's regexes slow."""

from reasoning.layered.facts import GROUP_CHARS, groups_of


def test_a_groups_signature_and_sample_are_cut_to_the_limit():
    (group,) = groups_of(
        [{"signature": "s" * (GROUP_CHARS * 3), "sample": "x" * 10**6, "count": 2}]
    )
    assert len(group.signature) == len(group.sample) == GROUP_CHARS
    assert group.count == 2


def test_an_ordinary_group_is_read_whole():
    (group,) = groups_of([{"signature": "timeout <*>", "sample": "timeout after 5s"}])
    assert group.text == "timeout <*>\ntimeout after 5s"
