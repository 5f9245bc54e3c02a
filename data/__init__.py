"""Package data of sgr-kit (see sgr_kit/resources.py): this folder ships inside the installed package."""
