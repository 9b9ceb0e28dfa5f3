"""Flavors in the API database (flavors, flavor_extra_specs,
flavor_projects)."""
from nova_lite.db.api import models

FLAVORS = models.Flavors.__table__
EXTRA_SPECS = models.FlavorExtraSpecs.__table__
PROJECTS = models.FlavorProjects.__table__
