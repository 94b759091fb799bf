"""SEC EDGAR source: 10-K text and XBRL figures of real companies, aligned on companies."""
