"""Keyboard shortcuts for the annotation widget: the key map and the widget that hears the keys.

ipywidgets has no key events. :class:`KeyCatcher` is a small ``anywidget`` (a few lines of
JavaScript, no build step): once shown, it makes the annotator's whole area focusable,
marks it ``data-lm-suppress-shortcuts`` (JupyterLab's documented way to keep its
command-mode shortcuts, such as ``1`` = "heading 1", away from a widget's own keys) and
sends each mapped key pressed inside it to the kernel. Keys typed into a text field (the
note) stay text, and keys with Ctrl, Alt or Meta are left to the browser.

:data:`KEYMAP` maps a key (the DOM ``KeyboardEvent.key``) to an action; :func:`action_for`
reads it.
"""

from __future__ import annotations

from typing import Callable

import anywidget
import traitlets

from .view import LABELS

__all__ = ["KEYMAP", "action_for", "KeyCatcher"]

#: Key -> (action, label): ``1``-``8`` give the labels in the order of :data:`~.view.LABELS`;
#: ``n`` / ``→`` next answer, ``p`` / ``←`` previous, ``u`` the next unlabelled one.
KEYMAP: dict[str, tuple[str, str | None]] = {
    **{str(i + 1): ("label", label) for i, label in enumerate(LABELS)},
    "n": ("next", None), "ArrowRight": ("next", None),
    "p": ("previous", None), "ArrowLeft": ("previous", None),
    "u": ("unlabelled", None),
}  # fmt: skip


def action_for(key: str) -> tuple[str, str | None] | None:
    """The action of ``key`` (None when the key has none).

    Examples
    --------
    >>> action_for("1"), action_for("3"), action_for("ArrowLeft"), action_for("x")
    (('label', 'correct'), ('label', 'criterion_mismatch'), ('previous', None), None)
    """
    return KEYMAP.get(key)


_ESM = r"""
function render({ model, el }) {
  el.classList.add("sgr-keys");
  const hint = document.createElement("div");
  hint.className = "sgr-keys-hint";
  el.appendChild(hint);
  let root = null;
  const editable = (t) => t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName));
  const show = () => {
    const on = root !== null && root.contains(document.activeElement);
    el.classList.toggle("sgr-keys-on", on);
    hint.textContent = on ? model.get("active_text") : model.get("idle_text");
  };
  const onKey = (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || event.isComposing || editable(event.target)) return;
    if (!model.get("watched").includes(event.key)) return;
    event.preventDefault();
    event.stopPropagation();
    model.send({ kind: "key", key: event.key });
  };
  const onClick = (event) => {
    if (root !== null && !editable(event.target) && !root.contains(document.activeElement)) {
      root.focus({ preventScroll: true });
    }
  };
  const onBlur = () => setTimeout(show, 0);
  const attach = (tries) => {
    if (!el.isConnected) {
      if (tries > 0) setTimeout(() => attach(tries - 1), 50);
      return;
    }
    root = el.closest(model.get("scope")) || el;
    if (!root.hasAttribute("tabindex")) root.setAttribute("tabindex", "0");
    root.setAttribute("data-lm-suppress-shortcuts", "true");
    root.addEventListener("keydown", onKey);
    root.addEventListener("click", onClick);
    root.addEventListener("focusin", show);
    root.addEventListener("focusout", onBlur);
    show();
  };
  el.addEventListener("click", () => { if (root !== null) root.focus({ preventScroll: true }); });
  model.on("change:idle_text", show);
  model.on("change:active_text", show);
  attach(200);
  return () => {
    if (root !== null) {
      root.removeEventListener("keydown", onKey);
      root.removeEventListener("click", onClick);
      root.removeEventListener("focusin", show);
      root.removeEventListener("focusout", onBlur);
    }
  };
}
export default { render };
"""

_CSS = """
.sgr-keys { border: 2px dashed #909090; padding: 4px 8px; cursor: pointer; font-size: 12px; user-select: none;
  background: var(--jp-layout-color2, #f0f0f0); color: var(--jp-ui-font-color1, #1a1a1a); }
.sgr-keys.sgr-keys-on { border: 2px solid #009e73; background: #e0f3ec; color: #003d28; font-weight: 600; }
"""


class KeyCatcher(anywidget.AnyWidget):
    """Hears the keys of :data:`KEYMAP` pressed inside the element matching ``scope``.

    Each key arrives in the kernel as a custom message ``{"kind": "key", "key": ...}``;
    :meth:`on_key` registers the handler (tests call the handler directly: there is no
    front end in the kernel).
    """

    _esm = _ESM
    _css = _CSS
    watched = traitlets.List(traitlets.Unicode(), default_value=list(KEYMAP)).tag(sync=True)
    scope = traitlets.Unicode(".sgr-annotator").tag(sync=True)
    idle_text = traitlets.Unicode(
        "⌨ Keyboard off: click here (or anywhere in the annotator outside a text field) to label with the keys"
    ).tag(sync=True)
    active_text = traitlets.Unicode(
        "⌨ Keyboard on: 1-8 label (and go to the next answer) · n / → next · p / ← previous · u next unlabelled"
    ).tag(sync=True)

    def on_key(self, handler: Callable[[str], None]) -> None:
        """Call ``handler(key)`` for every mapped key pressed in the browser."""

        def receive(_widget: object, content: object, _buffers: object) -> None:
            if isinstance(content, dict) and content.get("kind") == "key" and isinstance(content.get("key"), str):
                handler(content["key"])

        self.on_msg(receive)
