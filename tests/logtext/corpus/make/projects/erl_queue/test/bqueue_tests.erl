-module(bqueue_tests).
-include_lib("eunit/include/eunit.hrl").

push_pop_test() ->
    {ok, Q1} = bqueue:push(a, bqueue:new(2)),
    ?assertMatch({a, _}, bqueue:pop(Q1)).

full_test() ->
    {ok, Q1} = bqueue:push(a, bqueue:new(1)),
    ?assertEqual({error, full}, bqueue:push(b, Q1)).

fifo_test() ->
    {ok, Q1} = bqueue:push(a, bqueue:new(3)),
    {ok, Q2} = bqueue:push(b, Q1),
    {First, _} = bqueue:pop(Q2),
    ?assertEqual(b, First).

size_test() ->
    ?assertEqual(0, bqueue:size(bqueue:new(4))),
    {ok, Q} = bqueue:push(x, bqueue:new(4)),
    ?assertEqual(2, bqueue:size(Q)).
