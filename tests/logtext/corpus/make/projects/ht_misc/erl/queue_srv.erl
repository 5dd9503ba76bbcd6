-module(queue_srv).
-export([push/2]).

push(Q, Item) ->
    Q ++ [Item]
    ok.
