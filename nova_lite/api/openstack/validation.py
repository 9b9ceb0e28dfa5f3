"""JSON-schema validation of request bodies and query strings, chosen by
microversion.

    @wsgi.expose(method='PUT')
    @validation.schema(schemas.update_v253, av.SERVICE_HYPERVISOR_UUID_IDS)
    def put(self, body=None): ...

    @wsgi.expose()
    @validation.query_schema(schemas.index_query, av.MIN,
                             av.before(av.STRICT_QUERY_EMPTY_SERVERS))
    @validation.query_schema(schemas.index_query_v275,
                             av.STRICT_QUERY_EMPTY_SERVERS)
    def get(self, query=None): ...

A decorator whose range does not hold the request's microversion stands
aside; the one that does validates and passes ``body=`` / ``query=``
(an action handler is already given ``body=``: that body is validated).
Validation runs before the method, hence before its policy check: a
malformed request is a 400 whoever sends it, as in Nova. Failures are 400s
naming the offending field.
"""
import base64
import binascii
import functools
import ipaddress
import re
import unicodedata

import jsonschema
from oslo_utils import strutils
from oslo_utils import timeutils
from oslo_utils import uuidutils
import pecan

from nova_lite.api.openstack import wsgi
from nova_lite import exception

_TRUE_FALSE = [True, False] + [
    word for pair in (('true', 'false'), ('True', 'False'), ('TRUE', 'FALSE'),
                      ('1', '0'), ('yes', 'no'), ('on', 'off'),
                      ('Yes', 'No'), ('On', 'Off'), ('YES', 'NO'),
                      ('ON', 'OFF'))
    for word in pair]


# The Compute API builds its character classes from the Basic
# Multilingual Plane only: a character past U+FFFE is refused in names
# and descriptions.
_BMP_END = 0xFFFF


def _is_printable(char):
    """Letters, marks, numbers, punctuation, symbols and horizontal
    spaces of the BMP; not control/format characters nor line/paragraph
    separators."""
    if ord(char) >= _BMP_END:
        return False
    category = unicodedata.category(char)
    return not category.startswith('C') and (
        not category.startswith('Z') or category == 'Zs')


def _without_final_newline(text):
    """The Compute API matches names and descriptions with a '$' that
    also matches before a final line feed: such a string is accepted."""
    return text[:-1] if text.endswith('\n') else text


FORMAT_CHECKER = jsonschema.FormatChecker()


@FORMAT_CHECKER.checks('printable')
def _printable(instance):
    return not isinstance(instance, str) or all(
        _is_printable(c) for c in _without_final_newline(instance))


@FORMAT_CHECKER.checks('name')
def _name(instance):
    """Printable, and neither starting nor ending with whitespace."""
    if not isinstance(instance, str):
        return True
    text = _without_final_newline(instance)
    if not text:
        return not instance
    if not all(_is_printable(c) for c in text):
        return False
    return (unicodedata.category(text[0]) != 'Zs' and
            unicodedata.category(text[-1]) != 'Zs')


@FORMAT_CHECKER.checks('base64')
def _base64(instance):
    """Base64 (user_data, personality contents), read as the Compute API
    does: characters outside the alphabet (line breaks, blanks) are
    skipped, the padding must be right."""
    if not isinstance(instance, str):
        return True
    try:
        base64.b64decode(instance.encode('ascii'))
    except (binascii.Error, ValueError):
        return False
    return True


@FORMAT_CHECKER.checks('uuid')
def _uuid(instance):
    """A UUID in any form oslo's is_uuid_like takes (dashes or not,
    braces, urn:uuid:, any case)."""
    return not isinstance(instance, str) or uuidutils.is_uuid_like(
        instance)


@FORMAT_CHECKER.checks('regex')
def _regex(instance):
    """A non-empty regular expression (the pattern filters of lists)."""
    if not isinstance(instance, str):
        return True
    try:
        re.compile(instance)
    except re.error:
        return False
    return bool(instance)


def _number_from(instance):
    """The number a numeric string stands for (None if it is none):
    the Compute API bounds "2048" as it bounds 2048 (and reads numbers
    through int() first, as it does)."""
    for kind in (int, float):
        try:
            return kind(instance)
        except (TypeError, ValueError, OverflowError):
            pass
    return None


def _bound(check):
    def validate(validator, limit, instance, schema):
        number = _number_from(instance)
        if number is not None:
            yield from check(validator, limit, number, schema)
    return validate


_Validator = jsonschema.validators.extend(
    jsonschema.Draft7Validator,
    {'minimum': _bound(jsonschema.Draft7Validator.VALIDATORS['minimum']),
     'maximum': _bound(jsonschema.Draft7Validator.VALIDATORS['maximum'])})


# Reusable property types.
boolean = {'type': ['boolean', 'string'], 'enum': _TRUE_FALSE}
# A host (or node) name as services record it: letters, digits and
# "-._" (underscores occur in real deployments).
hostname = {'type': 'string', 'minLength': 1, 'maxLength': 255,
            'pattern': r'^[a-zA-Z0-9._-]*$'}
non_negative_integer = {'type': ['integer', 'string'],
                        'pattern': r'^[0-9]+$', 'minimum': 0}
uuid = {'type': 'string', 'format': 'uuid'}
reason = {'type': 'string', 'minLength': 1, 'maxLength': 255}
# Names of things users create (flavors, ...).
name = {'type': 'string', 'minLength': 1, 'maxLength': 255,
        'format': 'name'}
description = {'type': ['string', 'null'], 'minLength': 0,
               'maxLength': 65535, 'format': 'printable'}
# Key/value metadata (servers, images): keys of these characters, string
# values of at most 255.
metadata = {
    'type': 'object',
    'patternProperties': {
        '^[a-zA-Z0-9-_:. ]{1,255}$': {'type': 'string', 'maxLength': 255},
    },
    'additionalProperties': False,
}


def single_param(schema):
    """A query parameter that may be given once."""
    return {'type': 'array', 'items': schema, 'minItems': 1, 'maxItems': 1}


def multi_params(schema):
    """A query parameter that may repeat; the last value wins."""
    return {'type': 'array', 'items': schema, 'minItems': 1}


def to_bool(value):
    return strutils.bool_from_string(value, strict=True)


def access_ip(value):
    """An accessIPv4/accessIPv6 value (validated as one) in its normal
    form, as Nova stores it: an IPv6 address compressed, its embedded
    IPv4 part in hex ('0000:...:babe:220.12.22.2' -> '::babe:dc0c:1602');
    None for none given ('' or null)."""
    if not value:
        return None
    try:
        return str(ipaddress.ip_address(value))
    except ValueError:
        return value


DISK_CONFIG = 'OS-DCF:diskConfig'


def auto_disk_config(body):
    """A validated body's OS-DCF:diskConfig as the compute API takes it:
    True for AUTO, False for MANUAL, None when not given."""
    value = body.get(DISK_CONFIG)
    return None if value is None else value == 'AUTO'


def last(query, name, default=None):
    """The value of a (validated) query parameter, the last if repeated."""
    values = (query or {}).get(name)
    return values[-1] if values else default


def iso_time(query, name):
    """The (last) value of query parameter name as a naive UTC datetime,
    None if absent; a 400 naming the parameter if it is no ISO 8601
    time (the Compute API's 'date-time' format)."""
    value = last(query, name)
    if value is None:
        return None
    try:
        parsed = timeutils.parse_isotime(value)
    except ValueError:
        raise exception.ValidationError(
            message="Invalid input for query parameters %s. Value: %s. "
                    "'%s' is not a 'date-time'" % (name, value, value))
    return timeutils.normalize_time(parsed)


def changes_window(query):
    """(changes-since, changes-before) of a list's query (iso_time); a
    400 if changes-before comes before changes-since."""
    since = iso_time(query, 'changes-since')
    before = iso_time(query, 'changes-before')
    if since and before and before < since:
        raise exception.InvalidInput(
            reason='The value of changes-since must be less than or '
                   'equal to changes-before.')
    return since, before


def _field_of(error):
    path = [str(p) for p in error.absolute_path]
    if error.validator == 'required':
        missing = error.message.split("'")
        if len(missing) > 1:
            path.append(missing[1])
    elif error.validator == 'additionalProperties':
        extra = error.message.split("'")
        if len(extra) > 1:
            path.append(extra[1])
    # Drop list indexes of query parameters: 'limit', not 'limit/0'.
    return '/'.join(p for p in path if not p.isdigit()) or 'body'


def _drop_unknown_properties(validator, instance):
    """Remove, in place, every property of instance (and of the objects
    in it) that its schema refuses as an additional property; the other
    errors stay."""
    while True:
        dropped = False
        for error in validator.iter_errors(instance):
            if (error.validator != 'additionalProperties' or
                    error.schema.get('additionalProperties') is not False or
                    not isinstance(error.instance, dict)):
                continue
            known = error.schema.get('properties', {})
            patterns = error.schema.get('patternProperties', {})
            for key in list(error.instance):
                if key not in known and not any(
                        re.search(p, key) for p in patterns):
                    del error.instance[key]
                    dropped = True
        if not dropped:
            return


def validate(schema, instance, what='body'):
    """Raise a 400 ValidationError naming the field if instance is bad.
    Through /v2 (the legacy v2 compatible endpoint) a body's unknown
    properties are dropped first, not refused."""
    validator = _Validator(schema, format_checker=FORMAT_CHECKER)
    if what == 'body' and wsgi.is_legacy_v2():
        _drop_unknown_properties(validator, instance)
    error = jsonschema.exceptions.best_match(validator.iter_errors(instance))
    if error is None:
        return
    field = _field_of(error)
    if error.validator in ('required', 'additionalProperties'):
        detail = error.message
    else:
        detail = 'Value: %s. %s' % (error.instance, error.message)
    if what == 'query':
        raise exception.ValidationError(
            message='Invalid input for query parameters %s. %s' % (
                field, detail))
    raise exception.ValidationError(field=field, detail=detail)


def _in_range(min_version, max_version):
    return wsgi.api_version().matches(min_version, max_version)


def schema(request_schema, min_version=None, max_version=None):
    """Validate the JSON body against request_schema in the version range."""
    def decorator(fn):
        @functools.wraps(fn)
        def wrapper(self, *args, **kwargs):
            if _in_range(min_version, max_version):
                body = kwargs['body'] if 'body' in kwargs \
                    else wsgi.request_body()
                validate(request_schema, body, 'body')
                kwargs['body'] = body
            return fn(self, *args, **kwargs)
        return wrapper
    return decorator


def query_params():
    """The query string as {name: [values]}."""
    params = {}
    for key, value in pecan.request.GET.items():
        params.setdefault(key, []).append(value)
    return params


def query_schema(request_schema, min_version=None, max_version=None):
    """Validate the query string against request_schema in the range.

    Parameters the schema does not declare are dropped when it allows
    additional properties (the Compute API ignores them before 2.75).
    """
    def decorator(fn):
        @functools.wraps(fn)
        def wrapper(self, *args, **kwargs):
            if _in_range(min_version, max_version):
                query = query_params()
                validate(request_schema, query, 'query')
                declared = request_schema.get('properties', {})
                kwargs['query'] = {k: v for k, v in query.items()
                                   if k in declared}
            return fn(self, *args, **kwargs)
        # Recorded for strict_list_query: the schemas this handler has.
        wrapper.query_schemas = ((request_schema, min_version, max_version),
                                 ) + getattr(fn, 'query_schemas', ())
        return wrapper
    return decorator


def strict_list_query(since):
    """From microversion ``since`` on, a list refuses (400, naming it) any
    query parameter that the query schema in force (query_schema, applied
    below this decorator) does not declare; a list with no query schema
    then takes no parameter at all. Below ``since`` the schemas decide
    (unknown parameters are ignored where they allow them)."""
    def decorator(fn):
        schemas = getattr(fn, 'query_schemas', ())

        @functools.wraps(fn)
        def wrapper(self, *args, **kwargs):
            if _in_range(since, None):
                declared, patterns = set(), set()
                for request_schema, low, high in schemas:
                    if _in_range(low, high):
                        declared.update(request_schema.get('properties', {}))
                        patterns.update(request_schema.get(
                            'patternProperties', {}))
                validate({'type': 'object',
                          'properties': {name: {} for name in declared},
                          'patternProperties': {p: {} for p in patterns},
                          'additionalProperties': False},
                         query_params(), 'query')
            return fn(self, *args, **kwargs)
        return wrapper
    return decorator
