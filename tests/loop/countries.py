"""A corpus the plan tests build themselves: summaries for countries the sample corpus lacks (Canada, Australia,
Switzerland, Hong Kong), written for the tests (the figures are illustrations, not legal facts). No document has
aliases: questions must be understood from country names, demonyms and the corpus' own codes."""

from __future__ import annotations

from datetime import date

from core.domain.documents import DocumentMeta, Exemption


def country_corpus() -> list[tuple[DocumentMeta, list[str]]]:
    """CA (a current regulation and the 2007 rules it replaced), AU, CH (two passages), HK."""
    ca_now = DocumentMeta(
        id="ca-regs-2021",
        title="Canada client identification regulations 2021",
        jurisdiction="CA",
        effective=date(2021, 6, 1),
        applies_to=("money services business", "bank"),
        exemptions=(
            Exemption(
                entity="money services business",
                rule="Money services businesses need not verify clients for domestic transfers under CAD 1,000.",
            ),
        ),
    )
    ca_old = DocumentMeta(
        id="ca-rules-2007",
        title="Canada client identification rules 2007",
        jurisdiction="CA",
        status="superseded",
        effective=date(2007, 6, 1),
        superseded_by=("ca-regs-2021",),
        applies_to=("money services business",),
    )
    au = DocumentMeta(
        id="au-aml-act",
        title="Australia AML/CTF Act summary",
        jurisdiction="AU",
        effective=date(2006, 12, 12),
        applies_to=("remittance provider",),
    )
    ch = DocumentMeta(
        id="ch-amla",
        title="Switzerland Anti-Money Laundering Act summary",
        jurisdiction="CH",
        effective=date(1998, 4, 1),
        applies_to=("financial intermediary",),
    )
    hk = DocumentMeta(
        id="hk-amlo",
        title="Hong Kong AMLO summary",
        jurisdiction="HK",
        effective=date(2012, 4, 1),
        applies_to=("money service operator",),
    )
    return [
        (
            ca_now,
            [
                "Canadian money services businesses must verify the identity of a client for international "
                "electronic funds transfers of CAD 1,000 or more. "
                "Money services businesses need not verify clients for domestic transfers under CAD 1,000.",
                "Large cash transactions of CAD 10,000 or more must be reported to the financial intelligence "
                "unit within 15 calendar days. These regulations replaced the 2007 client identification rules "
                "on 1 June 2021.",
            ],
        ),
        (
            ca_old,
            [
                "Under the 2007 client identification rules, money services businesses verified clients for "
                "transfers of CAD 3,000 or more. The 2007 rules were replaced on 1 June 2021."
            ],
        ),
        (
            au,
            [
                "Australian remittance providers must report international funds transfer instructions of any value. "
                "Threshold transactions of AUD 10,000 or more in physical currency must be reported within 10 "
                "business days."
            ],
        ),
        (
            ch,
            [
                "Swiss financial intermediaries must identify the contracting party for cash transactions of "
                "CHF 15,000 or more.",
                "Money exchange transactions of CHF 5,000 or more require identification, and the reporting office "
                "reviews suspicious activity reports above CHF 25,000 first.",
            ],
        ),
        (
            hk,
            [
                "Hong Kong money service operators must apply customer due diligence to wire transfers of "
                "HKD 8,000 or more. Hong Kong money service operators must keep transaction records for five years."
            ],
        ),
    ]
