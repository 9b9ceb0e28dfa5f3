"""The legacy cell-DB flavor tables and the API DB ones stay identical."""
import pytest

from nova_lite.db.api import models as api_models
from nova_lite.db.main import models as main_models

PAIRS = [
    (main_models.InstanceTypes, api_models.Flavors),
    (main_models.InstanceTypeExtraSpecs, api_models.FlavorExtraSpecs),
    (main_models.InstanceTypeProjects, api_models.FlavorProjects),
]


def _columns(model):
    result = {}
    for col in model.__table__.columns:
        default = col.default.arg if col.default is not None else None
        if callable(default):
            default = getattr(default, '__name__', repr(default))
        result[col.name] = (repr(col.type), col.nullable, col.primary_key,
                            col.autoincrement, default,
                            col.server_default is not None)
    return result


def _foreign_keys(model):
    return sorted((fk.parent.name, fk.column.name)
                  for fk in model.__table__.foreign_keys)


def _unique_sets(model):
    return sorted(tuple(c.name for c in uc.columns)
                  for uc in model.__table__.constraints
                  if uc.__class__.__name__ == 'UniqueConstraint')


def _index_sets(model):
    return sorted(tuple(c.name for c in ix.columns)
                  for ix in model.__table__.indexes)


@pytest.mark.parametrize('legacy,api', PAIRS,
                         ids=[api.__tablename__ for _, api in PAIRS])
def test_legacy_and_api_models_match_column_for_column(legacy, api):
    assert _columns(legacy) == _columns(api)


@pytest.mark.parametrize('legacy,api', PAIRS,
                         ids=[api.__tablename__ for _, api in PAIRS])
def test_legacy_and_api_models_have_same_keys_and_indexes(legacy, api):
    assert _foreign_keys(legacy) == _foreign_keys(api)
    assert _unique_sets(legacy) == _unique_sets(api)
    assert _index_sets(legacy) == _index_sets(api)


def test_flavor_columns_are_the_ones_the_issue_lists():
    assert set(_columns(api_models.Flavors)) == {
        'created_at', 'updated_at', 'deleted_at', 'deleted', 'id', 'name',
        'memory_mb', 'vcpus', 'swap', 'vcpu_weight', 'flavorid',
        'rxtx_factor', 'root_gb', 'ephemeral_gb', 'disabled', 'is_public',
        'description'}
    assert _unique_sets(api_models.Flavors) == [('flavorid', 'deleted'),
                                                ('name', 'deleted')]
    assert _unique_sets(api_models.FlavorExtraSpecs) == [
        ('flavor_id', 'key', 'deleted')]
    assert _index_sets(api_models.FlavorExtraSpecs) == [('flavor_id', 'key')]
    assert _unique_sets(api_models.FlavorProjects) == [
        ('flavor_id', 'project_id', 'deleted')]
