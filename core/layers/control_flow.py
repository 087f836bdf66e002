"""Functional API: control_flow."""

__all__ = []
