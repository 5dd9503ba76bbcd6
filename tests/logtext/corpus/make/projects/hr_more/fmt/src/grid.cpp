#include <vector>

int cells(const std::vector<int> &row) {
    int total = 0;
    for (int v : row) total += v;
    return total;
}

int widest(const std::vector<std::vector<int>>& rows){
    int best=0;
    for (const auto &row : rows) {
        if (static_cast<int>(row.size()) > best) best = static_cast<int>(row.size());
    }
    return best;
}
