"""The function the toy mission optimises: approximate pi with a partial Leibniz series."""

TERMS = 4


def approx_pi(terms: int = TERMS) -> float:
    """4 * (1 - 1/3 + 1/5 - ...), summed over ``terms`` terms."""
    return 4 * sum((-1) ** k / (2 * k + 1) for k in range(terms))
