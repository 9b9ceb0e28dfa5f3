"""Alembic environment: nova_lite passes the connection in attributes."""
from alembic import context

config = context.config


def run_migrations_online():
    connection = config.attributes.get('connection')
    if connection is not None:
        context.configure(connection=connection, target_metadata=None,
                          render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
        return
    import sqlalchemy as sa
    engine = sa.create_engine(config.get_main_option('sqlalchemy.url'))
    with engine.connect() as conn:
        context.configure(connection=conn, target_metadata=None,
                          render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()


run_migrations_online()
