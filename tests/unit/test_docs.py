"""The project's reStructuredText (README.rst, doc/*.rst) parses with no
warning or error: a table whose text runs into its column margin, or a
list that ends without a blank line, renders as an error block."""
import glob
import io
import os

from docutils import core
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
DOCS = sorted([os.path.join(ROOT, 'README.rst')]
              + glob.glob(os.path.join(ROOT, 'doc', '*.rst')))


@pytest.mark.parametrize('path', DOCS,
                         ids=[os.path.relpath(p, ROOT) for p in DOCS])
def test_parses_cleanly(path):
    with open(path, encoding='utf-8') as f:
        source = f.read()
    problems = io.StringIO()
    core.publish_doctree(source, source_path=path, settings_overrides={
        'report_level': 2, 'halt_level': 5, 'warning_stream': problems})
    assert problems.getvalue() == ''
