"""Test doubles that stand in for models in logic tests and demos. Named as doubles: they judge nothing."""
