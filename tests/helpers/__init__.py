"""Helpers shared by several test modules (importable as ``tests.helpers``)."""
