"""JSON documents of the saved-model format: :class:`ModelFormatError`, the format version,
encoding and size-limited decoding, the ``format``/``version`` header check and typed field
access. Every other module of :mod:`core.serialization` reports damage through these."""
import json

__all__ = ["FORMAT_VERSION", "MAX_JSON_BYTES", "ModelFormatError", "check_header", "decode_json",
           "encode_json", "require"]

FORMAT_VERSION = 1
#: limit applied while reading; see docs/model_format.md ("Limits")
MAX_JSON_BYTES = 256 * 2 ** 20


class ModelFormatError(ValueError):
    """A saved file is damaged, truncated, foreign, too new, or declares impossible contents."""


def require(d, key, kind, where):
    """``d[key]``, which must be present and an instance of ``kind``."""
    if not isinstance(d, dict) or key not in d:
        raise ModelFormatError(f"{where}: missing field '{key}'")
    if not isinstance(d[key], kind):
        raise ModelFormatError(f"{where}: field '{key}' has the wrong type "
                               f"({type(d[key]).__name__})")
    return d[key]


def check_header(doc, fmt, where):
    """Validate the ``format`` and ``version`` fields of a parsed JSON document."""
    if not isinstance(doc, dict) or "format" not in doc:
        raise ModelFormatError(f"{where} is not a dy2static file (no 'format' field); expected "
                               f"format '{fmt}'")
    if doc["format"] != fmt:
        raise ModelFormatError(f"{where} holds format {doc['format']!r}, expected '{fmt}' "
                               "(a foreign file)")
    version = doc.get("version")
    if type(version) is not int or version < 1:
        raise ModelFormatError(f"{where}: invalid format version {version!r}")
    if version > FORMAT_VERSION:
        raise ModelFormatError(f"{where} was written by format version {version} of '{fmt}'; "
                               f"this dy2static reads versions up to {FORMAT_VERSION}: upgrade "
                               "dy2static to load it")


def encode_json(doc):
    """``doc`` as UTF-8 JSON bytes, indented (diffable and human-readable), keys in order."""
    return json.dumps(doc, indent=1, ensure_ascii=False).encode("utf-8")


def decode_json(data, where):
    """Parse JSON bytes; any damage becomes a :class:`ModelFormatError` naming ``where``."""
    if len(data) > MAX_JSON_BYTES:
        raise ModelFormatError(f"{where}: JSON document of {len(data)} bytes exceeds the "
                               f"{MAX_JSON_BYTES}-byte limit")
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise ModelFormatError(f"{where}: damaged JSON ({type(e).__name__}: {e})") from None
