*** Settings ***
Library    ../resources/calc.py

*** Test Cases ***
Addition Works
    ${sum}=    Add Numbers    2    3
    Should Be Equal As Integers    ${sum}    5

Division Works
    ${q}=    Divide Numbers    7    2
    Should Be Equal As Numbers    ${q}    3.5

Division By Zero Is Reported
    Run Keyword And Expect Error    ZeroDivisionError*    Divide Numbers    1    0
