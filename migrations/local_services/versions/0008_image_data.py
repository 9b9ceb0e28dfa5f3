"""The bytes of images uploaded to the embedded image service (Glance's
PUT /v2/images/{id}/file), served back by GET .../file.

Expand only: a new table. Images uploaded before this revision have no
bytes kept (their download is a 204, as Glance's of an image without
data).

Revision ID: 0008_image_data
Revises: 0007_floating_ips
Create Date: 2026-11-29
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import mysql

revision = '0008_image_data'
down_revision = '0007_floating_ips'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'image_data',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('image_id', sa.String(36), sa.ForeignKey('images.id'),
                  primary_key=True, nullable=False),
        sa.Column('data', sa.LargeBinary().with_variant(
            mysql.LONGBLOB(), 'mysql'), nullable=False),
        mysql_engine='InnoDB', mysql_charset='utf8')
