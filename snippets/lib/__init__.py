"""The code snippets share: the core attention module and its helpers.

Every file in this folder is a library module that snippets import (``from lib.attention import softmax``);
every file in a chapter's folder, ``snippets/<chapter>/<what>.py``, is a snippet the build runs. A snippet never
imports another snippet.
"""
