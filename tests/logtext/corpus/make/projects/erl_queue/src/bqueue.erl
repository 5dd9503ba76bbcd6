-module(bqueue).
-export([new/1, push/2, pop/1, size/1]).

new(Limit) -> {Limit, []}.

push(Item, {Limit, Items}) when length(Items) < Limit -> {ok, {Limit, Items ++ [Item]}};
push(_Item, {_Limit, _Items}) -> {error, full}.

pop({_Limit, []}) -> empty;
pop({Limit, [H | T]}) -> {H, {Limit, T}}.

size({_Limit, Items}) -> length(Items).
