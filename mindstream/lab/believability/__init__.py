"""Believability (Generative Agents, section 6): interviews under ablated conditions, a judge
that ranks the answers, TrueSkill ratings and their significance."""

import importlib.util


def require_statistics() -> None:
    """One line, before any interview is asked, where the lab extra is missing."""
    missing = [m for m in ("trueskill", "scipy") if importlib.util.find_spec(m) is None]
    if missing:
        raise ValueError(
            f"{' and '.join(missing)} not installed: believability ratings need the lab extra "
            "(pip install 'mindstream[lab]'; make install includes it)"
        )
