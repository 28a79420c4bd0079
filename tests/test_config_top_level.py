"""Top-level config fields are checked against their own types (text, or true/false)."""

import pytest

from autoalign.config import ConfigError, from_dict, load_config, load_preset_dict, preset_names


@pytest.mark.parametrize("preset", preset_names())
def test_every_preset_loads(preset):
    cfg = load_config(preset)
    assert isinstance(cfg.sequential, bool) and isinstance(cfg.random_weights, bool) and isinstance(cfg.test_double, bool)


@pytest.mark.parametrize("key, value, message", [
    ("sequential", "yes", "sequential must be true or false"),
    ("random_weights", 1, "random_weights must be true or false"),
    ("name", 3, "name must be text"),
])
def test_a_top_level_field_of_the_wrong_type_is_named(key, value, message):
    data = load_preset_dict("tiny")
    data[key] = value
    with pytest.raises(ConfigError, match=message):
        from_dict(data)


def test_top_level_flags_read_as_booleans():
    data = load_preset_dict("tiny")
    data.update(sequential=True, test_double=True)
    cfg = from_dict(data)
    assert cfg.sequential is True and cfg.test_double is True
