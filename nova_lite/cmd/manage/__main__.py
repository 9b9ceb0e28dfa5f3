"""python -m nova_lite.cmd.manage: the same as nova-lite-manage."""
import sys

from nova_lite.cmd import manage

sys.exit(manage.main())
