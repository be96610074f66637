"""Game rules as pure functions over integer cents: standard library only, no I/O.

Modules (public names are stable; read their docstrings):

* `cards`      Card, Rank, Suit, decks and shoes; `Card.parse("QH")`.
* `money`      Odds ("3:2", to 1), ForOne ("500 for 1"), MeterShare ("10%"), commission.
* `errors`     ConfigError (bad table configuration), RulesError (a step not allowed now).
* `reader`     SectionReader: `confkeys.Section` plus pay lines and odds (errors name the key).
* `hands`      Game, hand_value, initial_deal_order, peek_eligible (R4), dealer_must_draw.
* `sidebets`   classifiers: perfect_pairs_line, lucky_ladies_line, match_the_dealer,
               blazing7s_line, spanish21_bonus, is_super_bonus; SideBet names.
* `axman`      axman_lines (dealer's final hand as a poker hand, KD wild), kings_of_diamonds.
* `paytables`  frozen pay tables and `paytables_from_mapping` ([paytables.*]).
* `options`    BlackjackRules, BaccaratRules, TableSettings, GameConfig and
               `game_config_from_mapping` (the [table], [rules.*], [paytables.*] and
               [progressive] sections of the table file).
* `meter`      Blazing 7's meter arithmetic: accept_wagers, pay_share, settle_progressive.
* `blackjack`  one blackjack / Spanish 21 / community round as steps: start_round,
               next_position, deal, insure, take_even_money, close_insurance, peek,
               legal_actions, act.
* `settlement` settle(round, meter) -> every hand's and side wager's net.
* `baccarat`   Coup, next_side, deal_card, banker_draws (Table 1), settle_baccarat.
* `strategy`   basic-strategy charts as data, basic_strategy, player policies.
* `dealer`     the reference dealer: play_blackjack_round, play_baccarat_round.
"""
