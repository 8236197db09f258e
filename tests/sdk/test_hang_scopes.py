"""pai._hang_scopes: which interval is in force, without sockets."""

import unittest

import sdk_path  # noqa: F401 - before pai
from pai._hang_scopes import DEFAULT, OFF, HangScopes


class HangScopesTest(unittest.TestCase):
    def test_the_base_is_default_until_set(self) -> None:
        scopes = HangScopes()
        self.assertEqual(scopes.current(), DEFAULT)
        scopes.base = "600"
        self.assertEqual(scopes.current(), "600")

    def test_closing_the_newest_scope_hands_back(self) -> None:
        scopes = HangScopes()
        scopes.base = "600"
        outer = scopes.open("60")
        inner = scopes.open(OFF)
        self.assertEqual(scopes.current(), OFF)
        self.assertEqual(scopes.close(inner), "60")
        self.assertEqual(scopes.close(outer), "600")

    def test_closing_an_older_scope_changes_nothing(self) -> None:
        scopes = HangScopes()
        older = scopes.open("100")
        newer = scopes.open("200")
        self.assertIsNone(scopes.close(older))
        self.assertEqual(scopes.current(), "200")
        self.assertEqual(scopes.close(newer), DEFAULT)

    def test_a_token_closes_once(self) -> None:
        scopes = HangScopes()
        token = scopes.open("5")
        self.assertEqual(scopes.close(token), DEFAULT)
        self.assertIsNone(scopes.close(token))


if __name__ == "__main__":
    unittest.main()
