"""Test tooling that stands in for AWS on this machine (not shipped in any image)."""
