"""Prompt files -> templates. One folder per task under ``prompts/``, one YAML file per variant.

A prompt file is validated into :class:`PromptFile` (unknown keys rejected). Templates use Python
``{name}`` fields (write ``{{``/``}}`` for literal braces). Rendering checks the variables first: a
missing one is named (``prompt 'user_translate/baseline' needs variable 'target_language'``), an
unexpected one too. Every prompt has a content hash (of the file's canonical content) that results
carry, so a changed prompt is a different system.

Two formats. ``format: chat`` (the default) renders a system and a user message for a model's chat
template. ``format: completion`` is for **base** models (no chat template): the prompt renders to one
plain text that the model continues, usually few-shot. Its examples come from a fixed pool file,
``data/fewshot/<pool>.yaml`` (a list of records, written for the purpose; see its README), rendered
with ``examples.template`` and put where the template says ``{examples}``. ``stop`` lists the strings
at which generation stops (default: the end of the line); models stop generating there and cut the
text at it. A completion prompt renders to a single ``HumanMessage`` that carries its format and stop
strings in ``additional_kwargs`` (see :func:`completion_request`).

``untrusted: [message, ...]`` names the variables that hold untrusted text (default: none); rendering
keeps them inside the template's delimiter tags and, in completion prompts, on one line
(:mod:`aya_lab.spotlight`); so does :meth:`PromptFile.chat_template`. Models escape control tokens.

One module per concern, in import order (at run time each imports only those above it):

- ``errors``: :class:`PromptError`;
- ``completion``: how a rendered completion prompt reaches a model (:data:`COMPLETION_KEY`,
  :func:`completion_request`, :func:`cut_at_stop`);
- ``fewshot``: the example pools (:class:`ExamplesSpec`, :func:`load_pool`, :func:`fewshot_dir`);
- ``render``: values -> messages (variable checks, spotlighting, the examples block);
- ``file``: :class:`PromptFile` (validation, variables, content hash) and its chat template;
- ``load``: finding and loading variants by name (:func:`load_prompt`, :func:`list_variants`,
  :func:`variant_names`, :func:`choose_prompt`, :func:`fit_prompt`).

Import from ``aya_lab.prompts``; the submodules are its layout, not its interface.
"""

from __future__ import annotations

from aya_lab.prompts.completion import COMPLETION_KEY, completion_request, cut_at_stop
from aya_lab.prompts.errors import PromptError
from aya_lab.prompts.fewshot import ExamplesSpec, fewshot_dir, load_pool
from aya_lab.prompts.file import PromptFile, SpotlitChatTemplate
from aya_lab.prompts.load import PromptChoice, choose_prompt, fit_prompt, list_variants, load_prompt, variant_names

__all__ = [
    "COMPLETION_KEY",
    "PromptChoice",
    "choose_prompt",
    "ExamplesSpec",
    "PromptFile",
    "PromptError",
    "SpotlitChatTemplate",
    "completion_request",
    "cut_at_stop",
    "fewshot_dir",
    "fit_prompt",
    "load_pool",
    "load_prompt",
    "list_variants",
    "variant_names",
]
